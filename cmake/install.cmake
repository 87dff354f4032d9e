# Install rules, the CMake package, the pkg-config file and the Debian packages
# (README "Installing"). A tool author's project then writes
#
#   find_package(retrace CONFIG REQUIRED)
#   target_link_libraries(t retrace::testing GTest::gtest_main)
#
# and includes <retrace/testing/replay_stability.h>. Two components:
#   cli — the `retrace` executable (Debian package "retrace");
#   dev — the static libraries, the headers, the CMake and pkg-config files
#         (Debian package "retrace-dev").
include(CMakePackageConfigHelpers)

set(RETRACE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/retrace)

# The libraries a tool author builds on, each retrace::<layer>; format is what
# store reads its files with, so it comes along.
set(RETRACE_EXPORTED core presenters engine format store tools check)
foreach(layer IN LISTS RETRACE_EXPORTED)
  set_target_properties(retrace_${layer} PROPERTIES EXPORT_NAME ${layer})
endforeach()
list(TRANSFORM RETRACE_EXPORTED PREPEND retrace_ OUTPUT_VARIABLE RETRACE_EXPORTED_TARGETS)

install(TARGETS retrace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
# The presenters program for dsh tool packages (`retrace check --presenters-cmd`,
# docs/REPLAY-STABILITY.md): it goes with the CLI that runs it.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/check/dsh-presenters.mjs
        DESTINATION ${CMAKE_INSTALL_DATADIR}/retrace/adapters COMPONENT cli)
install(TARGETS ${RETRACE_EXPORTED_TARGETS} EXPORT retrace-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT retrace-targets NAMESPACE retrace:: DESTINATION ${RETRACE_CMAKE_DIR}
        FILE retrace-targets.cmake COMPONENT dev)
# retrace::testing needs GoogleTest: its own export set, loaded by the package
# config only where GoogleTest is found, so a project without it still gets the rest.
if(TARGET retrace_testing)
  set_target_properties(retrace_testing PROPERTIES EXPORT_NAME testing)
  install(TARGETS retrace_testing EXPORT retrace-testing-targets COMPONENT dev)
  install(EXPORT retrace-testing-targets NAMESPACE retrace:: DESTINATION ${RETRACE_CMAKE_DIR}
          FILE retrace-testing-targets.cmake COMPONENT dev)
endif()

# The public headers: every header of the installed layers, by layer path.
foreach(layer engine presenters format store tools check testing)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/retrace
          COMPONENT dev FILES_MATCHING PATTERN "*.h")
endforeach()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/retrace-config.cmake.in
                              ${PROJECT_BINARY_DIR}/retrace-config.cmake INSTALL_DESTINATION ${RETRACE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/retrace-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/retrace-config.cmake ${PROJECT_BINARY_DIR}/retrace-config-version.cmake
        DESTINATION ${RETRACE_CMAKE_DIR} COMPONENT dev)

# pkg-config: `pkg-config --cflags --libs --static retrace` for builds without CMake.
file(RELATIVE_PATH RETRACE_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" RETRACE_PC_TO_PREFIX "${RETRACE_PC_TO_PREFIX}")
# -l flags for the exported libraries, highest layer first (static link order).
set(RETRACE_PC_LIBS ${RETRACE_EXPORTED_TARGETS})
list(REVERSE RETRACE_PC_LIBS)
list(TRANSFORM RETRACE_PC_LIBS PREPEND -l)
list(JOIN RETRACE_PC_LIBS " " RETRACE_PC_LIBS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/retrace.pc.in ${PROJECT_BINARY_DIR}/retrace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/retrace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# `cpack -G DEB` in the build directory: build/retrace_<v>_<arch>.deb and
# build/retrace-dev_<v>_<arch>.deb. The CLI's runtime dependencies are read off
# the binary (dpkg-shlibdeps); the dev package declares the -dev packages its
# headers and static libraries need.
set(CPACK_PACKAGE_NAME retrace)
set(CPACK_PACKAGE_VENDOR "retrace")
set(CPACK_PACKAGE_CONTACT "retrace maintainers <retrace@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Event-sourced session engine for AI-agent tools")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME retrace)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "bubblewrap, ripgrep, python3")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME retrace-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libsqlite3-dev, libzstd-dev, libsimdjson-dev, libboost-dev, libspdlog-dev, libssl-dev, libicu-dev, pkg-config")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "retrace, libgtest-dev, libgmock-dev, nlohmann-json3-dev")
set(CPACK_COMPONENT_CLI_DESCRIPTION "retrace: record, replay, query and check agent tool sessions")
set(CPACK_COMPONENT_DEV_DESCRIPTION "retrace libraries, headers and CMake package for tool authors")
include(CPack)
