// SPDX-License-Identifier: MIT
// uriscan.params() and uriscan.columns() (python/uriscan/__init__.py).
#ifndef URISCAN_PYTHON_SRC_ANALYTICS_H_
#define URISCAN_PYTHON_SRC_ANALYTICS_H_

#include <pybind11/pybind11.h>

#include "uriscan/normalize.h"

namespace uriscan {
namespace python {

namespace py = pybind11;

// {name: list} for the column names in `names` (docs/python.md): per row
// a str, a list of str (path_segments, param_names), a bool (valid,
// repaired), an int (line, at) or None; `profile` and `options` for key,
// normalized and surt_crawler; each row repaired first when `lenient`.
py::dict Columns(const py::handle& urls, const py::handle& names,
                 Profile profile, const NormalizeOptions& options,
                 bool lenient);
// (row int64 array, names, values): every query parameter, form-decoded
// unless `raw`.
py::tuple Params(const py::handle& urls, bool raw, bool lenient);

}  // namespace python
}  // namespace uriscan

#endif  // URISCAN_PYTHON_SRC_ANALYTICS_H_
