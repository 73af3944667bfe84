// Property 4: printing a datum and reading it back is the identity; expanding then interpreting keeps the meaning.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/Properties.h"
#include "syntax/Reader.h"

namespace dmci::props {

RC_GTEST_PROP(Syntax, PrintThenReadIsIdentity, ()) {
  DatumPtr d = *genDatum();
  Outcome o = checkPrintRead(d);
  RC_LOG() << o.detail << "\n";
  RC_ASSERT(o.ok());
}

RC_GTEST_PROP(Syntax, GeneratedProgramsPrintAndReadBack, ()) {
  Case c = *genCase();
  auto forms = readAll(c.text, "case.scm");
  RC_ASSERT(forms.ok());
  for (const auto& f : *forms) RC_ASSERT(checkPrintRead(f).ok());
}

RC_GTEST_PROP(Syntax, ExpandedCoreKeepsMeaning, ()) {
  Case c = *genCase();
  Outcome o = checkExpandKeepsMeaning(c);
  RC_LOG() << describe(c) << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

}  // namespace dmci::props
