// The listed child groups and the signal handler that kills them (ChildGroups.h).
#include "support/ChildGroups.h"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <mutex>

namespace dmci {
namespace {

constexpr int kMaxChildren = 256;
std::atomic<pid_t> children[kMaxChildren];
struct sigaction previousAction[2];

void killChildren(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  for (auto& c : children)
    if (const pid_t g = c.load(); g > 0) ::kill(-g, SIGKILL);
  const struct sigaction& old = previousAction[sig == SIGINT ? 0 : 1];
  if (old.sa_flags & SA_SIGINFO) {
    old.sa_sigaction(sig, info, context);
  } else if (old.sa_handler == SIG_DFL) {
    ::signal(sig, SIG_DFL);
    ::raise(sig);  // delivered when this handler returns: dmci ends as it would have
  } else if (old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
  }
  errno = saved;
}

}  // namespace

void installChildGroupKiller() {
  static std::once_flag once;
  std::call_once(once, [] {
    const int sigs[2] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; ++k) {
      ::sigaction(sigs[k], nullptr, &previousAction[k]);
      if (!(previousAction[k].sa_flags & SA_SIGINFO) && previousAction[k].sa_handler == SIG_IGN) continue;
      struct sigaction sa {};
      sa.sa_sigaction = killChildren;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sigs[k], &sa, nullptr);
    }
  });
}

int listChildGroup(pid_t group) {
  for (int k = 0; k < kMaxChildren; ++k) {
    pid_t none = 0;
    if (children[k].compare_exchange_strong(none, group)) return k;
  }
  return -1;
}

void unlistChildGroup(int slot) {
  if (slot >= 0 && slot < kMaxChildren) children[slot].store(0);
}

}  // namespace dmci
