# Installing DMCI like a Debian tool (issue 44), included from CMakeLists.txt after every target is defined:
#   - the man pages (dmci(1), dmci-COMMAND(1)) and the bash completion, written at build time by the built dmci
#     from its CLI11 definitions (cmake/docs.cmake), installed to share/man/man1 and
#     share/bash-completion/completions;
#   - the C API's pkg-config file (lib/pkgconfig/dmci.pc) and CMake package (lib/cmake/dmci: find_package(dmci));
#   - CPack's Debian packages, one per install component: dmci (tool: the tool, its plugins, the pages, the
#     completion), libdmci0 (lib: libdmci.so.0), libdmci-dev (dev: the header, the libdmci.so link, pkg-config and
#     CMake files), python3-dmci (python: the Python package in dist-packages). Depends come from dpkg-shlibdeps.
# `cpack -G DEB` in the build folder makes them; ci/package-check builds, lints, installs and removes them.
set(DMCI_PACKAGE_MAINTAINER "DMCI developers <dmci@example.org>"
    CACHE STRING "The Maintainer field of the Debian packages (and their changelog's signature)")
set(DMCI_DOCS ${CMAKE_CURRENT_BINARY_DIR}/docs)
# The packages' version: the project's, then the packaging revision (a non-native package, as Debian's tools are).
set(DMCI_DEB_RELEASE 1)
set(DMCI_DEB_VERSION "${PROJECT_VERSION}-${DMCI_DEB_RELEASE}")
set(DMCI_DEB_PACKAGES dmci libdmci0 libdmci-dev python3-dmci)

if(TARGET dmci)
  add_custom_command(OUTPUT ${DMCI_DOCS}/stamp
    COMMAND ${CMAKE_COMMAND} -DDMCI=$<TARGET_FILE:dmci> -DOUT=${DMCI_DOCS} -DVERSION=${DMCI_DEB_VERSION}
            "-DMAINTAINER=${DMCI_PACKAGE_MAINTAINER}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/docs.cmake
    DEPENDS dmci ${CMAKE_CURRENT_SOURCE_DIR}/cmake/docs.cmake
    COMMENT "Writing dmci's man pages and bash completion from its command-line definitions" VERBATIM)
  add_custom_target(dmci_docs ALL DEPENDS ${DMCI_DOCS}/stamp)
  install(DIRECTORY ${DMCI_DOCS}/man1/ DESTINATION share/man/man1 COMPONENT tool FILES_MATCHING PATTERN "*.1.gz")
  install(FILES ${DMCI_DOCS}/completion/dmci DESTINATION share/bash-completion/completions COMPONENT tool)
  # Each package's copyright and changelog, where Debian looks for them.
  set(components tool lib dev python)
  foreach(component package IN ZIP_LISTS components DMCI_DEB_PACKAGES)
    install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/cmake/debian/copyright ${DMCI_DOCS}/changelog.Debian.gz
            DESTINATION share/doc/${package} COMPONENT ${component})
  endforeach()
endif()

# The C API for C and C++ builds: pkg-config and find_package(dmci), both relative to their installed folder.
include(CMakePackageConfigHelpers)
configure_file(cmake/dmci.pc.in ${CMAKE_CURRENT_BINARY_DIR}/dmci.pc @ONLY)
set(DMCI_INSTALL_LIBDIR lib)
set(DMCI_INSTALL_INCLUDEDIR include)
configure_package_config_file(cmake/dmciConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/dmciConfig.cmake
  INSTALL_DESTINATION lib/cmake/dmci PATH_VARS DMCI_INSTALL_LIBDIR DMCI_INSTALL_INCLUDEDIR)
# A client written for C API version v runs on any later library (dmci.h: versions only add).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/dmciConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY AnyNewerVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dmci.pc DESTINATION lib/pkgconfig COMPONENT dev)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dmciConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/dmciConfigVersion.cmake
        DESTINATION lib/cmake/dmci COMPONENT dev)

# --- CPack: the four Debian packages ---
# cpack (and `ninja install`) build only what they install, not every test and bench first: ci/package-check builds
# the installed targets (dmci_installed) and then packs them.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
if(TARGET dmci)
  add_custom_target(dmci_installed DEPENDS dmci dmci_shared dmci_docs dmci_python)
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dmci)
set(CPACK_PACKAGE_VENDOR "DMCI developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the tool keeps its dynamic symbol table (ENABLE_EXPORTS): plugins still bind to it
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tool lib dev python)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${DMCI_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${DMCI_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_TOOL_PACKAGE_NAME dmci)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION science)
# Descriptions: the synopsis, then lines of at most 80 characters (lintian).
set(CPACK_COMPONENT_TOOL_DESCRIPTION "gradients of Scheme programs by differentiable meta-circular interpretation
The dmci tool runs and differentiates programs in a Scheme subset by four
routes (direct, through a meta-circular evaluator, twice over, tape-free),
checks those gradients against a multiprecision oracle (dmci check), fits
programs to data (dmci fit) and searches programs (dmci search). Its plugins
are the tensor engine and dmci fit's optimizers (Ceres Solver, pagmo2,
LibTorch). Man pages and bash completion included.")
set(CPACK_DEBIAN_LIB_PACKAGE_NAME libdmci0)
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIB_DESCRIPTION "DMCI's C API library
libdmci.so.0: open a Scheme program once, then evaluate its value and
gradient for one seed, for a batch of lanes, or fit it to data. The tensor
engine and the optimizers come with the dmci package.")
set(CPACK_DEBIAN_LIB_PACKAGE_SUGGESTS dmci)
# Its shlibs file (what dpkg-shlibdeps gives a package linking libdmci.so.0) and the ldconfig trigger, written
# here: CPack's own (CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS) calls ldconfig from maintainer scripts instead.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/debian/libdmci0/shlibs "libdmci ${DMCI_SOVERSION} libdmci0 (>= ${PROJECT_VERSION})\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/debian/libdmci0/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_BINARY_DIR}/debian/libdmci0/shlibs
    ${CMAKE_CURRENT_BINARY_DIR}/debian/libdmci0/triggers)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libdmci-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libdmci0 (= ${DMCI_DEB_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION "DMCI's C API: development files
The header dmci.h, the libdmci.so link, the pkg-config file dmci.pc and the
CMake package (find_package(dmci), target dmci::dmci).")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-dmci)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "libdmci0 (>= ${PROJECT_VERSION}), python3, python3-numpy")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "dmci, python3-torch")
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_SOURCE_DIR}/cmake/debian/python3-dmci/postinst
    ${CMAKE_CURRENT_SOURCE_DIR}/cmake/debian/python3-dmci/prerm)
set(CPACK_COMPONENT_PYTHON_DESCRIPTION "DMCI's Python package
The dmci module (ctypes and NumPy over libdmci.so.0) and dmci.torch (DMCI
programs as PyTorch layers).")
include(CPack)

# ci/package-check's part that needs no root: each component installed into a fresh prefix, then the user checks
# (dmci --version, man -w, a completion query, a fit, import dmci, pkg-config and find_package clients).
if(DMCI_TESTS AND TARGET dmci)
  add_test(NAME package_check_staged COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ci/package-check --staged --no-build
           --build ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(package_check_staged PROPERTIES TIMEOUT 300 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1"
                       PASS_REGULAR_EXPRESSION "ci/package-check: staged checks passed")
endif()
