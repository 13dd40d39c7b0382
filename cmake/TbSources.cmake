# tb_collect_sources(OUT ROOT FOLDER...): the sources each FOLDER/sources.cmake lists in
# TB_MODULE_SOURCES, as paths under ROOT. Each module owns its list; targets only pick folders.
function(tb_collect_sources out root)
    set(all)
    foreach(folder IN LISTS ARGN)
        set(TB_MODULE_SOURCES)
        include(${root}/${folder}/sources.cmake)
        list(TRANSFORM TB_MODULE_SOURCES PREPEND ${root}/${folder}/)
        list(APPEND all ${TB_MODULE_SOURCES})
    endforeach()
    set(${out} ${all} PARENT_SCOPE)
endfunction()
