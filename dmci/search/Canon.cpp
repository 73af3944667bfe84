// The canonical key's two ways: the plugin's algebraic normal form when it is loaded, the S-expression hash else.
#include "search/Canon.h"

#include <mutex>

#include "support/Plugin.h"

namespace dmci::search {

namespace {

constexpr const char* kPlugin = "dmci-canon-ginac.so";

struct Registry {
  std::mutex mu;  // held around every translation: GiNaC is not thread-safe
  CanonicalTranslator translate = nullptr;
  std::string name, why;
  bool tried = false;
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
  if (kind == CanonKind::Ginac)
    if (auto text = canonicalAlgebraText(e, digits)) return {fnv1a("algebra\x1f" + *text), true};
  return {canonicalHash(e, hashDigits), false};
}

std::string canonicalBackend() {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mu);
  return translatorLocked(r) ? r.name : r.why;
}

}  // namespace dmci::search
