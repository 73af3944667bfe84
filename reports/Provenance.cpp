// A report's provenance: written with each report, read back by `dmci merge`, which checks that the shards agree.
#include "reports/Provenance.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

namespace dmci::reports {
namespace {

using json = nlohmann::ordered_json;

Error bad(const std::string& path, const std::string& message) {
  return Error{ErrorKind::Io, path + ": " + message, {}};
}

Result<std::string> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A field that must be there with the right type: a string, or a whole number that fits T.
template <class T>
Result<T> field(const json& o, const char* name, const std::string& path) {
  auto it = o.find(name);
  bool ok = it != o.end();
  if constexpr (std::is_same_v<T, std::string>) {
    ok = ok && it->is_string();
  } else {
    ok =
        ok && it->is_number_integer() &&
        (it->is_number_unsigned() ? it->template get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                                  : it->template get<int64_t>() >= std::numeric_limits<T>::min() &&
                                        it->template get<int64_t>() <= std::numeric_limits<T>::max());
  }
  if (!ok)
    return bad(path, std::string("provenance.") + name + ": missing or not " +
                         (std::is_same_v<T, std::string> ? "a string" : "a whole number in range"));
  return it->template get<T>();
}

// Every problem with one report against the first (the reference).
void compare(const std::pair<std::string, Provenance>& first, const std::pair<std::string, Provenance>& r,
             std::vector<std::string>& problems) {
  const auto& [p0, a] = first;
  const auto& [p1, b] = r;
  auto differ = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) problems.push_back(std::string(what) + ": " + p0 + " has '" + x + "', " + p1 + " has '" + y + "'");
  };
  differ("mixed kinds of report", a.kind, b.kind);
  differ("mixed builds (the dmci executables differ)", a.build, b.build);
  differ(a.kind == "gate" ? "different corpora" : "different campaigns", a.input, b.input);
  differ("different settings", a.settings, b.settings);
  if (a.shards != b.shards)
    problems.push_back("different shard counts: " + p0 + " is shard " + a.shardText() + ", " + p1 + " is shard " +
                       b.shardText());
  if (a.selected != b.selected)
    problems.push_back("different selections: " + p0 + " says " + std::to_string(a.selected) + " pairs in all, " + p1 +
                       " says " + std::to_string(b.selected));
}

}  // namespace

std::string Provenance::shardText() const {
  return (merged.empty() ? std::to_string(shard) : std::string("all")) + "/" + std::to_string(shards);
}

json provenanceJson(const Provenance& p) {
  json o{{"kind", p.kind}, {"shard", p.shardText()}, {"shard_index", p.shard}, {"shard_count", p.shards}};
  if (!p.merged.empty()) o["merged_shards"] = p.merged;
  if (p.kind == "gate") o["selected"] = p.selected;
  o["fingerprint"] = {{"build", p.build}, {"input", p.input}, {"settings", p.settings}};
  return o;
}

Result<Provenance> provenanceFromJson(const json& report, const std::string& path) {
  auto it = report.find("provenance");
  if (it == report.end() || !it->is_object())
    return bad(path, "no provenance (a report from before sharding, or not a dmci report): rerun it with this dmci");
  const json& o = *it;
  Provenance p;
  auto kind = field<std::string>(o, "kind", path);
  auto index = field<int>(o, "shard_index", path);
  auto count = field<int>(o, "shard_count", path);
  if (!kind || !index || !count) return !kind ? kind.error() : !index ? index.error() : count.error();
  p.kind = *kind, p.shard = *index, p.shards = *count;
  if (p.kind != "gate" && p.kind != "fuzz") return bad(path, "provenance.kind: '" + p.kind + "' is not gate or fuzz");
  if (p.shards < 1 || p.shard < 0 || p.shard >= p.shards)
    return bad(path, "provenance: shard " + std::to_string(p.shard) + " of " + std::to_string(p.shards));
  if (auto m = o.find("merged_shards"); m != o.end()) {
    if (!m->is_array()) return bad(path, "provenance.merged_shards: not an array of shard numbers");
    for (const auto& s : *m) {
      if (!s.is_number_integer() || s.get<int64_t>() < 0 || s.get<int64_t>() >= p.shards)
        return bad(path, "provenance.merged_shards: " + s.dump() + " is not a shard number");
      p.merged.push_back(s.get<int>());
    }
  }
  if (p.kind == "gate") {
    auto selected = field<int64_t>(o, "selected", path);
    if (!selected) return selected.error();
    if (*selected < 0) return bad(path, "provenance.selected: " + std::to_string(*selected) + " pairs");
    p.selected = static_cast<uint64_t>(*selected);
  }
  auto f = o.find("fingerprint");
  if (f == o.end() || !f->is_object()) return bad(path, "provenance.fingerprint: missing");
  for (auto [name, to] : {std::pair{"build", &p.build}, {"input", &p.input}, {"settings", &p.settings}}) {
    auto v = field<std::string>(*f, name, path);
    if (!v) return v.error();
    *to = *v;
  }
  return p;
}

uint64_t fnv1a(const std::string& bytes, uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hashText(uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Result<std::string> executableHash() {
  auto bytes = readBytes("/proc/self/exe");
  if (!bytes) return bytes.error();
  return hashText(fnv1a(*bytes));
}

Result<std::string> corpusHash(const std::string& dir, const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  auto manifest = readBytes((fs::path(dir) / "manifest.json").string());
  if (!manifest) return manifest.error();
  uint64_t h = fnv1a(*manifest);
  for (const auto& f : std::set<std::string>(files.begin(), files.end())) {
    auto text = readBytes((fs::path(dir) / f).string());
    if (!text) return text.error();
    h = fnv1a(*text, fnv1a(f + '\0', h));
  }
  return hashText(h);
}

Result<std::vector<size_t>> shardOrder(const std::vector<std::pair<std::string, Provenance>>& reports) {
  if (reports.empty()) return Error{ErrorKind::Usage, "no reports to merge", {}};
  std::vector<std::string> problems;
  for (const auto& [path, p] : reports)
    if (!p.merged.empty())
      problems.push_back(path + " is a merged report (shards " + p.shardText() + "): merge the shards' own reports");
  for (size_t k = 1; k < reports.size(); ++k) compare(reports.front(), reports[k], problems);
  int shards = reports.front().second.shards;
  std::map<int, size_t> byShard;
  for (size_t k = 0; k < reports.size(); ++k) {
    const auto& [path, p] = reports[k];
    if (p.shards != shards) continue;  // already said
    auto [it, fresh] = byShard.emplace(p.shard, k);
    if (!fresh)
      problems.push_back("shard " + p.shardText() + " appears twice: " + reports[it->second].first + " and " + path);
  }
  size_t missing = 0;  // named up to 10 (a count read from a file may be in the billions)
  for (int s = 0; s < shards && missing <= 10; ++s)
    if (!byShard.count(s) && ++missing <= 10)
      problems.push_back("shard " + std::to_string(s) + "/" + std::to_string(shards) + " is missing");
  if (missing > 10)
    problems.push_back("and " + std::to_string(shards - static_cast<int>(byShard.size()) - 10) + " more shards of " +
                       std::to_string(shards) + " are missing");
  if (!problems.empty()) {
    std::ostringstream o;
    o << "cannot merge " << reports.size() << " report" << (reports.size() == 1 ? "" : "s") << ":";
    for (const auto& p : problems) o << "\n  " << p;
    return Error{ErrorKind::Io, o.str(), {}};
  }
  std::vector<size_t> order;
  for (const auto& [s, k] : byShard) order.push_back(k);
  return order;
}

Provenance mergedProvenance(const std::vector<Provenance>& shards) {
  Provenance p = shards.front();
  p.shard = 0;
  p.merged.clear();
  for (const auto& s : shards) p.merged.push_back(s.shard);
  return p;
}

}  // namespace dmci::reports
