// The canonical key's two ways: the plugin's algebraic normal form when it is loaded, the S-expression hash else.
#include "search/Canon.h"

#include <mutex>
#include <unordered_map>

#include "support/Plugin.h"

namespace dmci::search {

namespace {

constexpr const char* kPlugin = "dmci-canon-ginac.so";

// Keys already made, by the program's exact text and the digits: a search proposes many a program again (the
// children it then does not score), and asks the key of a candidate more than once.
constexpr size_t kMemoMost = 1 << 20;

struct Registry {
  std::mutex mu;  // held around every translation: GiNaC is not thread-safe
  CanonicalTranslator translate = nullptr;
  std::string name, why;
  bool tried = false;
  std::unordered_map<uint64_t, std::optional<uint64_t>> memo;  // text and digits -> the algebraic key, or none
};

Registry& registry() {
  static Registry r;
  return r;
}

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Opens the plugin once; the caller holds the lock.
CanonicalTranslator translatorLocked(Registry& r) {
  if (!r.tried && !r.translate) {
    r.tried = true;
    r.mu.unlock();  // the plugin's initialiser registers itself
    std::string why = openPlugin(kPlugin, "the plugin " + std::string(kPlugin) + " is not installed");
    r.mu.lock();
    if (!r.translate) r.why = why.empty() ? "the plugin " + std::string(kPlugin) + " registered nothing" : why;
  }
  return r.translate;
}

}  // namespace

void registerCanonicalTranslator(const std::string& name, CanonicalTranslator translate) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.translate = translate, r.name = name;
}

std::optional<std::string> canonicalAlgebraText(const Expr& e, int digits) {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mu);
  CanonicalTranslator t = translatorLocked(r);
  if (!t) return std::nullopt;
  return t(e, digits);
}

CanonicalKey canonicalKey(const Expr& e, CanonKind kind, int digits, int hashDigits) {
  if (kind == CanonKind::Ginac) {
    Registry& r = registry();
    const uint64_t exact = fnv1a(std::to_string(digits) + "\x1f" + print(e));
    std::unique_lock<std::mutex> lock(r.mu);
    auto it = r.memo.find(exact);
    if (it == r.memo.end()) {
      CanonicalTranslator t = translatorLocked(r);
      std::optional<std::string> text = t ? t(e, digits) : std::nullopt;
      if (r.memo.size() >= kMemoMost) r.memo.clear();
      it = r.memo.emplace(exact, text ? std::optional<uint64_t>(fnv1a("algebra\x1f" + *text)) : std::nullopt).first;
    }
    if (it->second) return {*it->second, true};
  }
  return {canonicalHash(e, hashDigits), false};
}

std::string canonicalBackend() {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mu);
  return translatorLocked(r) ? r.name : r.why;
}

}  // namespace dmci::search
