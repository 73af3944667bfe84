// Builds datums on the heap, turning numbers into named tape leaves on request.
#include "runtime/Materialise.h"

#include "runtime/ExactValue.h"

namespace dmci {

Value materialise(Runtime& rt, const Datum& d, std::vector<Literal>* leaves,
                  std::vector<std::pair<int32_t, SrcPos>>* cellPos) {
  switch (d.kind) {
    case DatumKind::Nil:
      return Value::nil();
    case DatumKind::Bool:
      return Value::boolean(d.boolean);
    case DatumKind::Number: {
      if (!leaves) return isExact(d) ? exactNumberValue(d.number) : Value::real(d.number);
      Value v = rt.leaf(d.number);
      leaves->push_back({v.i, d.pos, d.number});
      return v;
    }
    case DatumKind::Char:
      return Value::make(Tag::Char, static_cast<int32_t>(d.ch));
    case DatumKind::Symbol:
      return Value::make(Tag::Symbol, internSymbol(d.text));
    case DatumKind::String:
      return rt.string(d.text);
    case DatumKind::List: {
      // Elements first, left to right (so leaves are numbered in reading order), then the spine.
      std::vector<Value> items;
      items.reserve(d.items.size());
      for (const auto& k : d.items) items.push_back(materialise(rt, *k, leaves, cellPos));
      Value tail = d.tail ? materialise(rt, *d.tail, leaves, cellPos) : Value::nil();
      for (size_t k = items.size(); k-- > 0;) {
        tail = rt.cons(items[k], tail);
        if (cellPos) cellPos->emplace_back(tail.i, k == 0 ? d.pos : d.items[k]->pos);
      }
      return tail;
    }
    case DatumKind::Vector: {
      std::vector<Value> items;
      items.reserve(d.items.size());
      for (const auto& k : d.items) items.push_back(materialise(rt, *k, leaves, cellPos));
      Value v = rt.vector(items.data(), static_cast<int32_t>(items.size()));
      v.code |= kLiteralVector;
      return v;
    }
  }
  return Value::nil();
}

Value heapList(Runtime& rt, const std::vector<Value>& vs) {
  Value l = Value::nil();
  for (size_t k = vs.size(); k-- > 0;) l = rt.cons(vs[k], l);
  return l;
}

}  // namespace dmci
