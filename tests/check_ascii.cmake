# SPDX-License-Identifier: MIT
# Fails when a source file holds a byte outside printable ASCII, tab and LF.
# Each file is read as hex (file(STRINGS) would drop the bytes we look for)
# and spaced into pairs, so a pattern can only match a whole byte.
file(GLOB_RECURSE sources ${ROOT}/include/*.h ${ROOT}/src/*.cc ${ROOT}/src/*.h
     ${ROOT}/kernels/*.cc ${ROOT}/kernels/*.h ${ROOT}/tests/*.cc
     ${ROOT}/tests/*.h ${ROOT}/tests/*.c ${ROOT}/tests/*.tsv
     ${ROOT}/tests/*.txt ${ROOT}/tests/*.cmake ${ROOT}/bench/*.cc
     ${ROOT}/bench/*.h ${ROOT}/bench/*.py ${ROOT}/corpus/*.cc
     ${ROOT}/python/src/*.cc ${ROOT}/python/src/*.h ${ROOT}/python/*.py
     ${ROOT}/python/uriscan/*.py ${ROOT}/python/tests/*.py
     ${ROOT}/tools/*.sh ${ROOT}/cmake/*.in ${ROOT}/postgres/*.cc
     ${ROOT}/postgres/*.h ${ROOT}/postgres/*.c ${ROOT}/duckdb/*.cc
     ${ROOT}/duckdb/*.h ${ROOT}/duckdb/*.sh)
list(APPEND sources ${ROOT}/CMakeLists.txt)
set(bad "")
foreach(f ${sources})
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "(..)" "\\1 " pairs "${hex}")
  # 00-08, 0b-1f, 7f and 80-ff, each followed by its space.
  if(pairs MATCHES "(0[0-8b-f]|1[0-9a-f]|7f|[89a-f][0-9a-f]) ")
    list(APPEND bad ${f})
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "non-ASCII or control bytes in:\n  ${bad}")
endif()
