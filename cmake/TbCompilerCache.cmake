# The compiler cache (Debian's ccache), when it is installed: a second build, in this folder or
# in a fresh clone elsewhere (CI after a session's own builds), takes its objects from the cache.
# Paths under the source tree are hashed relative to it (base_dir), the build folder's name is
# left out (hash_dir), and objects compiled with a precompiled header can be cached (sloppiness:
# the header is rebuilt, so newer, in every clone). A launcher set by the caller is kept.
option(TB_CCACHE "Compile through ccache when it is installed" ON)
find_program(TB_CCACHE_PROGRAM ccache)
if(TB_CCACHE AND TB_CCACHE_PROGRAM)
    set(tb_launcher env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${TB_CCACHE_PROGRAM})
    foreach(lang C CXX CUDA)
        if(NOT CMAKE_${lang}_COMPILER_LAUNCHER)
            set(CMAKE_${lang}_COMPILER_LAUNCHER ${tb_launcher})
        endif()
    endforeach()
    message(STATUS "TrainBench compiler cache: ${TB_CCACHE_PROGRAM} (base_dir ${PROJECT_SOURCE_DIR})")
endif()
