# SPDX-License-Identifier: MIT
# Fails when a source file holds a byte outside printable ASCII, tab and LF.
file(GLOB_RECURSE sources ${ROOT}/include/*.h ${ROOT}/src/*.cc ${ROOT}/src/*.h
     ${ROOT}/kernels/*.cc ${ROOT}/kernels/*.h ${ROOT}/tests/*.cc
     ${ROOT}/tests/*.h ${ROOT}/tests/*.c ${ROOT}/tests/*.tsv
     ${ROOT}/bench/*.cc ${ROOT}/corpus/*.cc ${ROOT}/python/src/*.cc
     ${ROOT}/python/src/*.h)
set(bad "")
foreach(f ${sources})
  file(STRINGS ${f} lines REGEX "[^\t -~]")
  if(lines)
    list(APPEND bad ${f})
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "non-ASCII bytes in: ${bad}")
endif()
