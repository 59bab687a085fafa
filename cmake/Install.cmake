# `cmake --install` puts the public headers, libbpeforge.so, the `bpeforge` command and a CMake
# package in place, so that a project can say find_package(bpeforge) and link
# bpeforge::bpeforge.
include(CMakePackageConfigHelpers)
set(BPEFORGE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bpeforge)

# A relocatable build also copies the shared libraries they load (cmake/Relocatable.cmake).
if(BPEFORGE_RELOCATABLE)
  set(BPEFORGE_BUNDLE RUNTIME_DEPENDENCY_SET bpeforge_bundle)
endif()

install(TARGETS bpeforge_lib EXPORT bpeforgeTargets ${BPEFORGE_BUNDLE}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS bpeforge ${BPEFORGE_BUNDLE} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# bpeforge/internal/ is for the project's own front ends (the command line, the MPI driver).
install(DIRECTORY include/bpeforge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN internal EXCLUDE)
install(EXPORT bpeforgeTargets NAMESPACE bpeforge:: DESTINATION ${BPEFORGE_CMAKE_DIR})
configure_package_config_file(cmake/bpeforgeConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/bpeforgeConfig.cmake
                              INSTALL_DESTINATION ${BPEFORGE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/bpeforgeConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/bpeforgeConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/bpeforgeConfigVersion.cmake
        DESTINATION ${BPEFORGE_CMAKE_DIR})
