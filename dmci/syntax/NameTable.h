// NameTable: a hash table from names to small values, for the passes that track the names in scope.
//
// At a program's top level every define is in scope, so these tables reach 100,000 entries and are hit on
// every variable reference. The table is flat (open addressing, linear probing): one allocation per growth,
// none per name, and a lookup reads one slot. Keys are views: the text must outlive the table (the passes
// key it by names held in the tree they walk). Entries are never removed; a pass marks a name unbound in
// its value instead, so rebinding it costs nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace dmci {

template <class V>
class NameTable {
 public:
  explicit NameTable(size_t expected = 0) {
    if (expected > 0) slots_.resize(capacityFor(expected));
  }

  size_t size() const { return used_; }

  // Room for `n` names in all without growing: a pass about to bind a long letrec's names grows the table
  // once instead of doubling through every size on the way (each doubling rehashes every slot).
  void reserve(size_t n) {
    if (capacityFor(n) > slots_.size()) rehash(capacityFor(n));
  }

  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  const V* find(std::string_view key) const {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[probe(key, hashOf(key))];
    return s.hash ? &s.value : nullptr;
  }

  // The table's own view of the key equal to `key`, and its value; {{}, nullptr} when absent.
  std::pair<std::string_view, V*> entry(std::string_view key) {
    if (slots_.empty()) return {};
    Slot& s = slots_[probe(key, hashOf(key))];
    return s.hash ? std::pair<std::string_view, V*>{s.key, &s.value} : std::pair<std::string_view, V*>{};
  }

  // The value for key, inserting `init` first when key is absent; .second: whether it was inserted.
  std::pair<V*, bool> tryEmplace(std::string_view key, V init) {
    uint64_t h = hashOf(key);
    if (!slots_.empty()) {
      size_t i = probe(key, h);
      if (slots_[i].hash) return {&slots_[i].value, false};
    }
    if (2 * (used_ + 1) > slots_.size()) grow();
    size_t i = probe(key, h);
    slots_[i] = Slot{h, key, std::move(init)};
    ++used_;
    return {&slots_[i].value, true};
  }
  V& operator[](std::string_view key) { return *tryEmplace(key, V{}).first; }

 private:
  struct Slot {
    uint64_t hash = 0;  // 0: empty
    std::string_view key;
    V value{};
  };
  std::vector<Slot> slots_;  // empty until the first insertion, then a power of two long and at most half full
  size_t used_ = 0;

  static size_t capacityFor(size_t n) {
    size_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
  }
  static uint64_t hashOf(std::string_view key) {
    uint64_t h = std::hash<std::string_view>{}(key);
    return h ? h : 1;
  }
  // The slot holding key, or the empty slot where it would go.
  size_t probe(std::string_view key, uint64_t h) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.hash || (s.hash == h && s.key == key)) return i;
    }
  }
  void grow() { rehash(slots_.empty() ? 16 : slots_.size() * 2); }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (Slot& s : old)
      if (s.hash) slots_[probe(s.key, s.hash)] = std::move(s);
  }
};

}  // namespace dmci
