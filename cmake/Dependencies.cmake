# Every dependency comes from a Debian 12 package (scripts/install-deps.sh installs them);
# nothing is downloaded at configure or build time.
find_package(Threads REQUIRED)
find_package(absl REQUIRED)                      # libabsl-dev: Status, strings, flat_hash_map
find_package(TBB REQUIRED)                       # libtbb-dev: parallel pre-tokenization
find_package(Boost 1.74 REQUIRED COMPONENTS regex)  # libboost-regex-dev: reference pre-tokenizer
find_package(ICU REQUIRED COMPONENTS uc i18n)   # libicu-dev: Unicode for Boost.Regex, table generator
find_package(nlohmann_json 3.10 REQUIRED)        # nlohmann-json3-dev: vocab.json, manifests
find_package(CLI11 REQUIRED)                     # libcli11-dev: the command line
# A relocatable build links these three statically: of Debian's static libraries, only theirs
# go into a shared object (cmake/Relocatable.cmake).
if(BPEFORGE_RELOCATABLE)
  set(BPEFORGE_SHARED_SUFFIXES ${CMAKE_FIND_LIBRARY_SUFFIXES})
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
endif()
find_package(ZLIB REQUIRED)                      # zlib1g-dev: CRC-32 of count files, gzip inputs
find_package(LibLZMA REQUIRED)                   # liblzma-dev: xz inputs
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)  # libzstd-dev: zstd inputs
if(BPEFORGE_RELOCATABLE)
  set(CMAKE_FIND_LIBRARY_SUFFIXES ${BPEFORGE_SHARED_SUFFIXES})
  set(BPEFORGE_STATIC_LIBRARIES ${ZLIB_LIBRARIES} ${LIBLZMA_LIBRARIES} ${ZSTD_LINK_LIBRARIES})
endif()
find_package(simdjson REQUIRED)                  # libsimdjson-dev: JSON Lines inputs
if(BPEFORGE_MPI)
  set(MPI_CXX_SKIP_MPICXX ON)                    # the C API from C++; not the removed C++ one
  find_package(MPI COMPONENTS CXX)               # libopenmpi-dev: mpirun training (optional)
endif()
if(BPEFORGE_BUILD_TESTS)
  find_package(GTest REQUIRED)                   # libgtest-dev
endif()
if(BPEFORGE_BUILD_BENCH)
  find_package(benchmark REQUIRED)               # libbenchmark-dev
endif()
