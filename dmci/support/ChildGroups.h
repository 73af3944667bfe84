// Children that die with dmci. A child (the compiled engine's compiler, `dmci search`'s --proposer) runs in a
// process group of its own, so that a terminal's ^C does not reach it directly and whatever it starts stays in
// its group. While the group is listed here, a SIGINT or SIGTERM of dmci kills every listed group, then does what
// dmci did with that signal before (the default: end; a handler: called; ignored: ignored).
#pragma once
#include <sys/types.h>

namespace dmci {

// Installs the SIGINT and SIGTERM handler (once; later calls do nothing).
void installChildGroupKiller();
// Lists group `group` to be killed with dmci: the slot to unlist it by, or -1 when every slot is taken (that
// child then ends by itself). List a group with SIGINT and SIGTERM blocked from before the fork, so that no
// signal falls between the fork and the listing.
int listChildGroup(pid_t group);
// Unlists the slot listChildGroup gave (-1: nothing); call it once the child has been waited for.
void unlistChildGroup(int slot);

}  // namespace dmci
