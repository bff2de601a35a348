# SPDX-License-Identifier: MIT
# Compiles through ccache when it is installed and no launcher was chosen
# (on the command line or in CMAKE_CXX_COMPILER_LAUNCHER's environment
# variable), so rebuilding after a change, or in a second build directory,
# compiles only what changed. Included by uriscan's own tree and by the
# Python package's build.
if(NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(URISCAN_CCACHE_PROGRAM ccache)
  if(URISCAN_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${URISCAN_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${URISCAN_CCACHE_PROGRAM})
  endif()
endif()
