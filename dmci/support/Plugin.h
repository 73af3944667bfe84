// Plugins: shared libraries the dmci tool opens on demand, so that the core links none of their heavy libraries
// (LibTorch, pagmo). Engines (`dmci-engine-NAME.so`) and optimizers (`dmci-optimizer-NAME.so`) are found the
// same way: in a folder of $DMCI_ENGINE_PATH, in a folder the host added (libdmci.so adds its own), beside the
// running executable, or in ../lib/dmci/ from it (an installed tree). A plugin registers what it provides from its
// static initialisers when it is opened.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace dmci {

// Where plugins may be, in the order they are looked for.
std::vector<std::filesystem::path> pluginFolders();

// Adds a folder to look in after $DMCI_ENGINE_PATH's and before the executable's: the C API's library adds its own
// location, since the executable that loaded it (python3, say) is not where DMCI is installed.
void addPluginFolder(const std::filesystem::path& dir);

// Opens the plugin `file` (e.g. "dmci-engine-tensor.so") from the first folder that has it. An empty string on
// success, else why not: a load error, or `missing` followed by the folders looked in.
std::string openPlugin(const std::string& file, const std::string& missing);

}  // namespace dmci
