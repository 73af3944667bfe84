// NameTable: a hash table from names to small values, for the passes that track the names in scope.
//
// At a program's top level every define is in scope, so these tables reach 100,000 entries and are hit on
// every variable reference. The entries (hash, key, value) lie in one array in the order they were added,
// and the open-addressed index over them (linear probing) holds only a 32-bit tag of each hash and the
// entry's place: 8 bytes a slot, a quarter of what whole entries took, so the index of 100,000 names is
// 2 MiB and mostly stays in cache. A program's names are added and looked up in nearly the same order
// (a form refers to the names defined around it), so the entries a lookup reads are near those it just
// read: the accesses to them run through memory instead of jumping across it. Keys are views: the text
// must outlive the table (the passes key it by names held in the tree they walk). Entries are never
// removed; a pass marks a name unbound in its value instead, so rebinding it costs nothing.
#pragma once
#include <algorithm>
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
    if (expected > 0) reserve(expected);
  }

  size_t size() const { return entries_.size(); }

  // Room for `n` names in all without growing: a pass about to bind a long letrec's names grows the table
  // once instead of doubling through every size on the way (each doubling rehashes every entry).
  void reserve(size_t n) {
    if (n > entries_.capacity()) entries_.reserve(std::max(n, 2 * entries_.capacity()));
    if (capacityFor(n) > slots_.size()) rehash(capacityFor(n));
  }

  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  const V* find(std::string_view key) const {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[probe(key, hashOf(key))];
    return s.index ? &entries_[s.index - 1].value : nullptr;
  }

  // The table's own view of the key equal to `key`, and its value; {{}, nullptr} when absent.
  std::pair<std::string_view, V*> entry(std::string_view key) {
    if (slots_.empty()) return {};
    const Slot& s = slots_[probe(key, hashOf(key))];
    if (!s.index) return {};
    Entry& e = entries_[s.index - 1];
    return {e.key, &e.value};
  }

  // The value for key, inserting `init` first when key is absent; .second: whether it was inserted.
  std::pair<V*, bool> tryEmplace(std::string_view key, V init) {
    uint64_t h = hashOf(key);
    if (!slots_.empty()) {
      const Slot& s = slots_[probe(key, h)];
      if (s.index) return {&entries_[s.index - 1].value, false};
    }
    if (2 * (entries_.size() + 1) > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    entries_.push_back(Entry{h, key, std::move(init)});
    slots_[probe(key, h)] = Slot{tagOf(h), static_cast<uint32_t>(entries_.size())};
    return {&entries_.back().value, true};
  }
  V& operator[](std::string_view key) { return *tryEmplace(key, V{}).first; }

 private:
  struct Entry {
    uint64_t hash;
    std::string_view key;
    V value;
  };
  struct Slot {
    uint32_t tag = 0;    // the hash's high half, so most mismatches need not read the entry
    uint32_t index = 0;  // 1 + the entry's place in entries_; 0: empty
  };
  std::vector<Entry> entries_;  // in the order they were added
  std::vector<Slot> slots_;     // empty until the first insertion, then a power of two long and at most half full

  static size_t capacityFor(size_t n) {
    size_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
  }
  static uint64_t hashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }
  static uint32_t tagOf(uint64_t h) { return static_cast<uint32_t>(h >> 32); }
  // The slot indexing key, or the empty slot where it would go.
  size_t probe(std::string_view key, uint64_t h) const {
    size_t mask = slots_.size() - 1;
    uint32_t tag = tagOf(h);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.index) return i;
      if (s.tag == tag) {
        const Entry& e = entries_[s.index - 1];
        if (e.hash == h && e.key == key) return i;
      }
    }
  }
  // A new index of `capacity` slots over the same entries (read in order, not rehashed from their text).
  void rehash(size_t capacity) {
    slots_.assign(capacity, Slot{});
    size_t mask = capacity - 1;
    for (size_t k = 0; k < entries_.size(); ++k) {
      size_t i = entries_[k].hash & mask;
      while (slots_[i].index) i = (i + 1) & mask;
      slots_[i] = Slot{tagOf(entries_[k].hash), static_cast<uint32_t>(k + 1)};
    }
  }
};

}  // namespace dmci
