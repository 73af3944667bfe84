// Reads the CLI11 app tree for the generated documents (AppTree.h).
#include "cli/AppTree.h"

#include "driver/Engine.h"

namespace dmci::cli {

std::vector<std::string> enumeratedValues(const std::string& typeLabel) {
  std::vector<std::string> out;
  for (size_t open = typeLabel.find('{'); open != std::string::npos; open = typeLabel.find('{', open + 1)) {
    size_t close = typeLabel.find('}', open);
    if (close == std::string::npos) break;
    std::string item;
    for (size_t i = open + 1; i <= close; ++i) {
      if (i == close || typeLabel[i] == ',') {
        while (!item.empty() && item.front() == ' ') item.erase(item.begin());
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (!item.empty()) out.push_back(item);
        item.clear();
      } else {
        item += typeLabel[i];
      }
    }
    open = close;
  }
  return out;
}

std::vector<OptionDoc> optionDocs(const CLI::App& app) {
  std::vector<OptionDoc> out;
  for (const CLI::Option* opt : app.get_options()) {
    OptionDoc d;
    for (const auto& s : opt->get_snames()) d.names.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) d.names.push_back("--" + l);
    if (d.names.empty()) d.positional = opt->get_name(true);
    const std::string label = opt->get_type_name();
    d.type = label.substr(0, label.find(':'));
    d.takesValue = opt->get_expected_max() != 0;  // a flag expects no value (add_flag: expected(0))
    d.repeatable = opt->get_expected_max() > 1;
    d.required = opt->get_required();
    d.defaultValue = opt->get_default_str();
    d.description = opt->get_description();
    if (d.takesValue) d.values = enumeratedValues(label);
    if (d.takesValue && d.values.empty())
      for (const auto& n : d.names)
        if (n == "--engine") d.values = engineNames();
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<const CLI::App*> subcommandsOf(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

}  // namespace dmci::cli
