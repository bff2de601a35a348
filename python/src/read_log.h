// SPDX-License-Identifier: MIT
// uriscan.read_log()'s core: a log's references and fields as columns.
#ifndef URISCAN_PYTHON_SRC_READ_LOG_H_
#define URISCAN_PYTHON_SRC_READ_LOG_H_

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace uriscan {
namespace python {

// The rows of `paths` read as LogReader reads them (uriscan/ingest.h):
// file, line (uint64 bytes), uri and, for clf and combined, the fields
// (numbers as raw little-endian bytes with has_* masks, text as lists of
// str or None). ValueError for options that do not hold together,
// RuntimeError naming a file that cannot be read, KeyboardInterrupt (any
// signal handler's exception) while it waits for input.
pybind11::dict ReadLog(const std::vector<std::string>& paths,
                       const std::string& format, const std::string& field,
                       const std::string& base, bool lenient);

}  // namespace python
}  // namespace uriscan

#endif  // URISCAN_PYTHON_SRC_READ_LOG_H_
