// SPDX-License-Identifier: MIT
// The k-way merge of sorted sources shared by Dedup's spilled runs and the
// compaction of a seen-set's key runs.
#ifndef URISCAN_SRC_STORE_KWAY_MERGE_H_
#define URISCAN_SRC_STORE_KWAY_MERGE_H_

#include <cstddef>
#include <queue>
#include <utility>
#include <vector>

namespace uriscan {

// Merges `sources` (each with `bool Next(Item*)`, sorted by `less`) with a
// heap of their heads, and calls first(item) for the first item of each
// group that `same` calls equal: with `less` ordering ties too, the
// smallest of the group.
template <class Item, class Source, class Less, class Same, class First>
void KWayMerge(std::vector<Source>& sources, Less less, Same same,
               First first) {
  if (sources.size() == 1) {  // no heap needed
    bool have_last = false;
    Item last{}, e;
    while (sources[0].Next(&e)) {
      if (!have_last || !same(e, last)) first(e);
      have_last = true;
      last = e;
    }
    return;
  }
  using Head = std::pair<Item, size_t>;
  auto later = [&](const Head& a, const Head& b) {
    return less(b.first, a.first);
  };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heap(later);
  for (size_t r = 0; r < sources.size(); ++r) {
    Item e;
    if (sources[r].Next(&e)) heap.push({e, r});
  }
  bool have_last = false;
  Item last{};
  while (!heap.empty()) {
    const auto [e, r] = heap.top();
    heap.pop();
    if (!have_last || !same(e, last)) {
      have_last = true;
      last = e;
      first(e);
    }
    Item next;
    if (sources[r].Next(&next)) heap.push({next, r});
  }
}

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_KWAY_MERGE_H_
