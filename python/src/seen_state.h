// SPDX-License-Identifier: MIT
// uriscan._uriscan._SeenState and uriscan.StateError (seen_state.cc).
#ifndef URISCAN_PYTHON_SRC_SEEN_STATE_H_
#define URISCAN_PYTHON_SRC_SEEN_STATE_H_

#include <pybind11/pybind11.h>

namespace uriscan {
namespace python {

void BindSeenState(pybind11::module_& m);

}  // namespace python
}  // namespace uriscan

#endif  // URISCAN_PYTHON_SRC_SEEN_STATE_H_
