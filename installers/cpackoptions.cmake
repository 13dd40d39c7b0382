# CPack's per-generator settings (CPACK_PROJECT_CONFIG_FILE): the Debian packages install under
# /usr; the tarball holds bin/, lib/ and share/ at its top, to unpack anywhere (the programs
# find the engine and the plugin by relative RPATH).
if(CPACK_GENERATOR STREQUAL "DEB")
    set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
else()
    set(CPACK_PACKAGING_INSTALL_PREFIX /)
endif()
