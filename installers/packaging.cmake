# Installing and packaging: the programs, the engine (a private library) and the CUDA plugin,
# the desktop entry, icon, AppStream metadata, manual pages and bash completion, and CPack's
# packages: trainbench (window + CLI), trainbench-cuda (the plugin) and one tarball.
set(TB_APP_ID "org.trainbench.TrainBench" CACHE STRING
    "Reverse-DNS id of the desktop application (desktop entry, icon, AppStream)")
set(TB_HOMEPAGE "https://github.com/trainbench/trainbench" CACHE STRING
    "The project's home page (AppStream's url and screenshot, Help > About)")
set(TB_RELEASE_DATE "2026-12-02")

# The engine and the plugin are ours alone: lib/trainbench, found by relative RPATH.
set(TB_PRIVATE_LIBDIR lib/trainbench)
set_target_properties(trainbench trainbench-cli PROPERTIES
    INSTALL_RPATH "$ORIGIN/../${TB_PRIVATE_LIBDIR}")
install(TARGETS trainbench trainbench-cli RUNTIME DESTINATION bin COMPONENT app)
install(TARGETS trainbench_engine LIBRARY DESTINATION ${TB_PRIVATE_LIBDIR} NAMELINK_SKIP
        COMPONENT app)

set(TB_LINUX ${CMAKE_CURRENT_LIST_DIR}/linux)
set(TB_GEN ${CMAKE_BINARY_DIR}/installers)
configure_file(${TB_LINUX}/trainbench.desktop.in ${TB_GEN}/${TB_APP_ID}.desktop @ONLY)
configure_file(${TB_LINUX}/trainbench.metainfo.xml.in ${TB_GEN}/${TB_APP_ID}.metainfo.xml @ONLY)
install(FILES ${TB_GEN}/${TB_APP_ID}.desktop DESTINATION share/applications COMPONENT app)
install(FILES ${TB_GEN}/${TB_APP_ID}.metainfo.xml DESTINATION share/metainfo COMPONENT app)
install(FILES ${TB_LINUX}/trainbench.svg DESTINATION share/icons/hicolor/scalable/apps
        RENAME ${TB_APP_ID}.svg COMPONENT app)

# The icon's PNG sizes, the manual pages and the bash completion are made by the build from
# their sources (the SVG, the CLI's command table and config schema).
add_executable(tb_rendericon ${TB_LINUX}/rendericon.cpp)
target_link_libraries(tb_rendericon PRIVATE Qt6::Gui Qt6::Svg)
tb_set_warnings(tb_rendericon)
set(TB_GENERATED)
foreach(size 16 24 32 48 64 128 256)
    set(png ${TB_GEN}/icons/${size}/${TB_APP_ID}.png)
    add_custom_command(OUTPUT ${png}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${TB_GEN}/icons/${size}
        COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
                $<TARGET_FILE:tb_rendericon> ${TB_LINUX}/trainbench.svg ${size} ${png}
        DEPENDS tb_rendericon ${TB_LINUX}/trainbench.svg
        COMMENT "Rendering the ${size}x${size} icon")
    install(FILES ${png} DESTINATION share/icons/hicolor/${size}x${size}/apps COMPONENT app)
    list(APPEND TB_GENERATED ${png})
endforeach()
foreach(page trainbench-cli trainbench)
    add_custom_command(OUTPUT ${TB_GEN}/${page}.1.gz
        COMMAND $<TARGET_FILE:trainbench-cli> man ${page} > ${TB_GEN}/${page}.1
        COMMAND gzip -9nf ${TB_GEN}/${page}.1
        DEPENDS trainbench-cli
        COMMENT "Writing the ${page}(1) manual page")
    install(FILES ${TB_GEN}/${page}.1.gz DESTINATION share/man/man1 COMPONENT app)
    list(APPEND TB_GENERATED ${TB_GEN}/${page}.1.gz)
endforeach()
add_custom_command(OUTPUT ${TB_GEN}/trainbench-cli.bash
    COMMAND $<TARGET_FILE:trainbench-cli> completion bash > ${TB_GEN}/trainbench-cli.bash
    DEPENDS trainbench-cli
    COMMENT "Writing trainbench-cli's bash completion")
install(FILES ${TB_GEN}/trainbench-cli.bash DESTINATION share/bash-completion/completions
        RENAME trainbench-cli COMPONENT app)
list(APPEND TB_GENERATED ${TB_GEN}/trainbench-cli.bash)
add_custom_target(tb_install_files ALL DEPENDS ${TB_GENERATED})

# ---- CPack: `cpack` (or `cmake --build --preset ... --target package`) in the build folder
set(CPACK_PACKAGE_NAME trainbench)
set(CPACK_PACKAGE_VENDOR "The TrainBench developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Neural network training workbench with live charts")
set(CPACK_PACKAGE_HOMEPAGE_URL ${TB_HOMEPAGE})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/cpackoptions.cmake)
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF) # one tarball with everything
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL app)
if(TARGET trainbench_cuda)
    list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "The TrainBench developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Library dependencies come from what the binaries link (dpkg-shlibdeps); the engine, built
# here, is found in the build tree and belongs to the trainbench package itself.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/engine)
set(CPACK_DEBIAN_APP_PACKAGE_NAME trainbench)
# Programs it runs rather than links: mpirun for data-parallel jobs; fonts for the window.
set(CPACK_DEBIAN_APP_PACKAGE_DEPENDS "openmpi-bin, fonts-dejavu-core")
set(CPACK_DEBIAN_APP_PACKAGE_RECOMMENDS "dataset-fashion-mnist, fortunes")
set(CPACK_DEBIAN_APP_DESCRIPTION
    "Neural network training workbench with live charts
 TrainBench trains neural networks on an NVIDIA GPU or on the CPU: pick a dataset and a model,
 set batch size, DataLoader workers, pinned memory, mixed precision and gradient accumulation,
 and watch the loss, validation, step time and hardware live. Every run is recorded and runs
 can be compared. trainbench-cli drives the same engine from a terminal.")
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME trainbench-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "trainbench (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_DESCRIPTION
    "TrainBench's CUDA backend (cuDNN, cuBLAS, NCCL)
 The plugin TrainBench loads to train on NVIDIA GPUs. It needs the NVIDIA driver and CUDA 13,
 cuDNN 9 and NCCL 2 in /usr/local/cuda; without them TrainBench trains on the CPU and says
 why the GPU cannot be used.")
include(CPack)
