# BPEFORGE_RELOCATABLE=ON (scripts/build-dist.sh): an install tree that runs from wherever it is
# unpacked, on a Linux with none of the -dev packages, and the parts of the Python wheel.
#
# zlib, xz and zstd are linked statically (cmake/Dependencies.cmake). Debian builds its other
# static libraries for executables only (-fPIE: Abseil's use the local-exec TLS model, Boost.Regex
# and ICU reach libstdc++'s and libc's data directly), so they cannot go into libbpeforge.so or
# the Python extension; oneTBB and simdjson ship no static library at all. All of those are
# bundled as shared libraries in lib/, found through run paths relative to $ORIGIN.
if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR "BPEFORGE_RELOCATABLE needs CMake 3.21 (install(RUNTIME_DEPENDENCY_SET))")
endif()
find_program(BPEFORGE_PATCHELF patchelf REQUIRED)  # patchelf: run paths of bundled libraries
find_program(BPEFORGE_DPKG_QUERY dpkg-query REQUIRED)  # which package owns a bundled library

# What the static archives define stays inside each shared object: their code was compiled for
# an executable, and a second zlib loaded by Python must not be interposed on ours.
target_link_options(bpeforge_lib PRIVATE -Wl,--exclude-libs,ALL)
set_target_properties(bpeforge_lib PROPERTIES INSTALL_RPATH "$ORIGIN")

# The wheel's package: bpeforge/_bpeforge*.so beside lib/ (the bundled libraries) and bin/.
if(TARGET _bpeforge)
  target_link_options(_bpeforge PRIVATE -Wl,--exclude-libs,ALL)
  set_target_properties(_bpeforge PROPERTIES INSTALL_RPATH "$ORIGIN/lib")
  install(TARGETS _bpeforge RUNTIME_DEPENDENCY_SET bpeforge_bundle
          LIBRARY DESTINATION python/bpeforge COMPONENT python EXCLUDE_FROM_ALL)
endif()

# The C and C++ runtime come from the system; everything else the binaries load is copied.
install(RUNTIME_DEPENDENCY_SET bpeforge_bundle
        PRE_EXCLUDE_REGEXES "^(ld-linux.*|libc|libm|libpthread|libdl|librt)\\.so"
                            "^(libstdc\\+\\+|libgcc_s)\\.so" "^libbpeforge\\.so"
        DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The public header includes Abseil's: the package carries those headers and defines Abseil's
# targets itself, over the libraries in lib/, so that a consumer needs no libabsl-dev.
function(bpeforge_write_bundled_targets file)
  set(pending ${ARGN})
  set(seen "")
  set(shared "")
  set(text "# Abseil's targets that bpeforge::bpeforge needs, over this package's copies.\n")
  set(lib ${CMAKE_INSTALL_LIBDIR})
  set(include ${CMAKE_INSTALL_INCLUDEDIR})
  while(pending)
    list(POP_FRONT pending target)
    if(target IN_LIST seen OR NOT target MATCHES "^absl::")
      continue()
    endif()
    list(APPEND seen ${target})
    get_target_property(type ${target} TYPE)
    get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
    if(NOT links)
      set(links "")
    endif()
    list(APPEND pending ${links})
    string(APPEND text "if(NOT TARGET ${target})\n")
    if(type STREQUAL "SHARED_LIBRARY")
      get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
      list(GET configs 0 config)
      get_target_property(soname ${target} IMPORTED_SONAME_${config})
      list(APPEND shared ${target})
      string(APPEND text "  add_library(${target} SHARED IMPORTED)\n"
             "  set_target_properties(${target} PROPERTIES IMPORTED_SONAME \"${soname}\"\n"
             "    IMPORTED_LOCATION \"\${PACKAGE_PREFIX_DIR}/${lib}/${soname}\")\n")
    elseif(type STREQUAL "INTERFACE_LIBRARY")
      string(APPEND text "  add_library(${target} INTERFACE IMPORTED)\n")
    else()
      message(FATAL_ERROR "${target} is a ${type}; only shared and header-only ones are bundled")
    endif()
    string(APPEND text "  set_target_properties(${target} PROPERTIES\n"
           "    INTERFACE_INCLUDE_DIRECTORIES \"\${PACKAGE_PREFIX_DIR}/${include}\"\n"
           "    INTERFACE_LINK_LIBRARIES \"${links}\")\nendif()\n")
  endwhile()
  file(WRITE ${file} "${text}")
  install(IMPORTED_RUNTIME_ARTIFACTS ${shared} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  get_target_property(headers absl::config INTERFACE_INCLUDE_DIRECTORIES)
  install(DIRECTORY ${headers}/absl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
get_target_property(public_deps bpeforge_lib INTERFACE_LINK_LIBRARIES)
bpeforge_write_bundled_targets(${CMAKE_CURRENT_BINARY_DIR}/bpeforgeBundledTargets.cmake
                               ${public_deps})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/bpeforgeBundledTargets.cmake
        DESTINATION ${BPEFORGE_CMAKE_DIR})

# Each bundled library finds its neighbours, whatever loads it. The licence of every library
# whose code the artifacts hold goes with them: the bundled ones, the static ones, the
# header-only ones compiled in (JSON, CLI11, pybind11) and Abseil's headers.
set(BPEFORGE_COMPILED_IN ${BPEFORGE_STATIC_LIBRARIES} "*/nlohmann/json.hpp" "*/CLI/CLI.hpp"
                         "*/pybind11/pybind11.h" "*/absl/base/config.h")
install(CODE "set(lib_dir \"${CMAKE_INSTALL_LIBDIR}\")
set(patchelf \"${BPEFORGE_PATCHELF}\")
set(dpkg_query \"${BPEFORGE_DPKG_QUERY}\")
set(compiled_in \"${BPEFORGE_COMPILED_IN}\")")
install(CODE [[
  set(prefix "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  file(GLOB bundled LIST_DIRECTORIES false "${prefix}/${lib_dir}/lib*.so.*")
  set(sources ${compiled_in})
  foreach(library IN LISTS bundled)
    get_filename_component(name "${library}" NAME)
    if(IS_SYMLINK "${library}" OR name MATCHES "^libbpeforge\\.")
      continue()
    endif()
    execute_process(COMMAND "${patchelf}" --set-rpath "$ORIGIN" "${library}"
                    COMMAND_ERROR_IS_FATAL ANY)
    list(APPEND sources "*/${name}")
  endforeach()
  set(licenses "${prefix}/share/doc/bpeforge/third-party")
  file(MAKE_DIRECTORY "${licenses}")
  foreach(source IN LISTS sources)
    execute_process(COMMAND "${dpkg_query}" -S "${source}" OUTPUT_VARIABLE owner
                    COMMAND_ERROR_IS_FATAL ANY)
    string(REGEX REPLACE "[:,].*" "" package "${owner}")
    file(COPY_FILE "/usr/share/doc/${package}/copyright" "${licenses}/${package}.copyright")
  endforeach()
]])

# The relocatable tree as bpeforge-VERSION-linux-x86_64.tar.gz (`cpack` in the build folder).
set(CPACK_GENERATOR TGZ)
set(CPACK_PACKAGE_FILE_NAME "bpeforge-${PROJECT_VERSION}-linux-x86_64")
set(CPACK_STRIP_FILES ON)
include(CPack)
