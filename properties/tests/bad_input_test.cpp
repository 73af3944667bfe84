// Property 5: random text, token soup and ill-typed programs give a clean error, never a crash, hang or wrong number.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/Properties.h"

namespace dmci::props {

RC_GTEST_PROP(BadInput, RandomTextIsACleanError, ()) {
  std::string text = *genRandomText();
  Outcome o = checkBadInput(text);
  RC_LOG() << text << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

RC_GTEST_PROP(BadInput, TokenSoupIsACleanError, ()) {
  std::string text = *genTokenSoup();
  Outcome o = checkBadInput(text);
  RC_LOG() << text << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

RC_GTEST_PROP(BadInput, IllTypedProgramsAreACleanError, ()) {
  std::string text = *genIllTyped();
  Outcome o = checkBadInput(text);
  RC_LOG() << text << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

}  // namespace dmci::props
