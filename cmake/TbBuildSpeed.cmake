# Build speed without a change to what is built: unity builds and precompiled headers.
#
# Unity: a library's sources compiled in batches, one translation unit per batch, so the headers
# they share are parsed and their inline code generated once per batch instead of once per file
# (the engine builds in less than half the time). On by default; the dev preset turns it off,
# since there an edit recompiles its whole batch. A source that cannot share a batch says why
# where its target skips it (SKIP_UNITY_BUILD_INCLUSION).
#
# Precompiled headers: what most sources include and what costs the most to parse (the standard
# library, nlohmann/json; Qt, QCustomPlot and Qt Test where used), compiled once per target. Only
# outside headers, so a change to one of ours rebuilds only what includes it. Without them
# (TB_PCH=OFF) every source still includes what it uses: the fuzz build, which has none, compiles
# core, nn, io and data so.
option(TB_UNITY "Compile each library's sources in batches (unity builds)" ON)
option(TB_PCH "Precompile the headers most sources include" ON)

set(TB_PCH_STANDARD <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstring>
    <filesystem> <functional> <map> <memory> <mutex> <optional> <set> <sstream> <string>
    <string_view> <thread> <unordered_map> <utility> <vector> <nlohmann/json.hpp>)

# tb_unity(TARGET BATCH): TARGET's sources in batches of BATCH files.
function(tb_unity target batch)
    if(TB_UNITY)
        set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
    endif()
endfunction()

# What every target with a precompiled header needs: moc's collection file (nearly empty where the
# sources include their own .moc) compiled without it, since loading the header would be most of
# its cost; and GCC 12's -Wstringop-overflow and -Warray-bounds off, which report std::string's
# own code (known false positives, like -Wrestrict's in TbWarnings) once that code comes from a
# precompiled header, where GCC 12 no longer sees it as a system header's.
function(tb_precompiled_target_options target)
    set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
                                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
        target_compile_options(${target} PRIVATE -Wno-stringop-overflow -Wno-array-bounds)
    endif()
endfunction()

# tb_precompile(TARGET [HEADER...]): the standard set plus HEADERs, for TARGET's sources.
function(tb_precompile target)
    if(TB_PCH)
        target_precompile_headers(${target} PRIVATE ${TB_PCH_STANDARD} ${ARGN})
        tb_precompiled_target_options(${target})
    endif()
endfunction()

# tb_reuse_precompiled(TARGET FROM): TARGET compiles with FROM's precompiled header. Both must
# compile with the same flags and definitions; GCC refuses a header built otherwise
# (-Winvalid-pch, an error under TB_WERROR), so a mismatch cannot pass unseen.
function(tb_reuse_precompiled target from)
    if(TB_PCH)
        target_precompile_headers(${target} REUSE_FROM ${from})
        tb_precompiled_target_options(${target})
    endif()
endfunction()
