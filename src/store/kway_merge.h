// SPDX-License-Identifier: MIT
// The k-way merge of sorted sources shared by Dedup's spilled runs and the
// compaction of a seen-set's key runs.
#ifndef URISCAN_SRC_STORE_KWAY_MERGE_H_
#define URISCAN_SRC_STORE_KWAY_MERGE_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace uriscan {

// Merges `sources` (each with `bool Next(Item*)`, sorted by `less`) and
// calls first(item) for the first item of each group that `same` calls
// equal: with `less` ordering ties too, the smallest of the group. Two
// sources (a compaction's usual case) take a plain two-way merge; more, a
// binary heap of their heads whose top is replaced by its source's next
// item in one sift (a pop and a push would take two).
template <class Item, class Source, class Less, class Same, class First>
void KWayMerge(std::vector<Source>& sources, Less less, Same same,
               First first) {
  bool have_last = false;
  Item last{};
  auto emit = [&](const Item& e) {
    if (have_last && same(e, last)) return;
    have_last = true;
    last = e;
    first(e);
  };
  if (sources.size() == 1) {
    Item e;
    while (sources[0].Next(&e)) emit(e);
    return;
  }
  if (sources.size() == 2) {
    Item a, b;
    bool has_a = sources[0].Next(&a), has_b = sources[1].Next(&b);
    while (has_a && has_b) {
      if (less(b, a)) {
        emit(b);
        has_b = sources[1].Next(&b);
      } else {
        emit(a);
        has_a = sources[0].Next(&a);
      }
    }
    for (; has_a; has_a = sources[0].Next(&a)) emit(a);
    for (; has_b; has_b = sources[1].Next(&b)) emit(b);
    return;
  }
  using Head = std::pair<Item, size_t>;  // an item and its source
  std::vector<Head> heap;
  auto sift_down = [&](size_t i) {
    const size_t n = heap.size();
    Head moving = heap[i];
    for (size_t child; (child = 2 * i + 1) < n; i = child) {
      if (child + 1 < n && less(heap[child + 1].first, heap[child].first))
        ++child;
      if (!less(heap[child].first, moving.first)) break;
      heap[i] = heap[child];
    }
    heap[i] = moving;
  };
  for (size_t r = 0; r < sources.size(); ++r) {
    Item e;
    if (sources[r].Next(&e)) heap.push_back({e, r});
  }
  for (size_t i = heap.size() / 2; i-- > 0;) sift_down(i);
  while (!heap.empty()) {
    emit(heap[0].first);
    if (!sources[heap[0].second].Next(&heap[0].first)) {
      heap[0] = heap.back();
      heap.pop_back();
      if (heap.empty()) break;
    }
    sift_down(0);
  }
}

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_KWAY_MERGE_H_
