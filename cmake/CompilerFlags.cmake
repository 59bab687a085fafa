# Warning and sanitizer flags shared by every target of the project.
add_library(bpeforge_flags INTERFACE)
target_compile_options(bpeforge_flags INTERFACE -Wall -Wextra -Wpedantic)
if(BPEFORGE_WERROR)
  target_compile_options(bpeforge_flags INTERFACE -Werror)
endif()
if(BPEFORGE_FUZZ)  # coverage for libFuzzer in every library; the targets link the fuzzer
  target_compile_options(bpeforge_flags INTERFACE -fsanitize=fuzzer-no-link)
endif()
if(BPEFORGE_SANITIZE)
  target_compile_options(bpeforge_flags INTERFACE -fsanitize=${BPEFORGE_SANITIZE}
                                                  -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(bpeforge_flags INTERFACE -fsanitize=${BPEFORGE_SANITIZE})
endif()
