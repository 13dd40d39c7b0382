# Warning flags for our own targets; TB_WERROR turns them into errors (CI does).
function(tb_set_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
            -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough
            # GCC 12 reports impossible overlaps inside std::string concatenation (GCC bug
            # 105651); the warning is noise there.
            $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>>)
    if(TB_WERROR)
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
    endif()
endfunction()
