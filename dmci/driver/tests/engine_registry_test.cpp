// The engine registry: engines found by name, the same engine for every caller (threads included), a clear error
// for an unknown name, and a replaced registration that leaves engines already handed out alive.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "testing/WrappedEngine.h"

namespace dmci {
namespace {

TEST(EngineRegistry, NativeIsAlwaysThereAndTheSameForEveryThread) {
  Engine* first = &nativeEngine();
  EXPECT_EQ(first->name(), "native");
  std::vector<Engine*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < seen.size(); ++k)
    threads.emplace_back([&seen, k] {
      auto e = engineNamed("native");
      seen[k] = e ? *e : nullptr;
    });
  for (auto& t : threads) t.join();
  for (Engine* e : seen) EXPECT_EQ(e, first);
}

TEST(EngineRegistry, AnUnknownNameIsAUsageErrorThatListsTheEngines) {
  auto e = engineNamed("no-such-engine");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().kind, ErrorKind::Usage);
  EXPECT_NE(e.error().message.find("no engine called 'no-such-engine' (engines: native"), std::string::npos)
      << e.error().message;
}

TEST(EngineRegistry, AReplacedRegistrationLeavesTheEngineHandedOutAlive) {
  registerEngine("replaced", [] { return std::make_unique<testing::WrappedEngine>(); });
  Engine* old = *engineNamed("replaced");
  registerEngine("replaced", [] { return std::make_unique<testing::WrappedEngine>(); });
  Engine* now = *engineNamed("replaced");
  EXPECT_NE(old, now);
  auto p = Program::fromText("(* x x)", "t.scm");
  ASSERT_TRUE(p);
  EvalOptions o;
  o.wrt = {"x"};
  auto ev = old->evaluate(*p, {{"x", 3}}, o);  // still usable
  ASSERT_TRUE(ev) << ev.error().str();
  EXPECT_EQ(ev->value, 9);
  EXPECT_EQ(ev->gradient.at(0).second, 6);
}

}  // namespace
}  // namespace dmci
