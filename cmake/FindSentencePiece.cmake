# FindSentencePiece: Debian's libsentencepiece-dev ships a pkg-config file but
# no CMake file. Defines SentencePiece::SentencePiece (pkg-config when there is
# one, else a plain search for the header and the library).
# Installed with softalign's CMake package, which finds it with find_dependency.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_SentencePiece QUIET sentencepiece)
endif()
find_path(SentencePiece_INCLUDE_DIR sentencepiece_processor.h HINTS ${PC_SentencePiece_INCLUDE_DIRS})
find_library(SentencePiece_LIBRARY sentencepiece HINTS ${PC_SentencePiece_LIBRARY_DIRS})

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SentencePiece
  REQUIRED_VARS SentencePiece_LIBRARY SentencePiece_INCLUDE_DIR
  VERSION_VAR PC_SentencePiece_VERSION)

if(SentencePiece_FOUND AND NOT TARGET SentencePiece::SentencePiece)
  add_library(SentencePiece::SentencePiece UNKNOWN IMPORTED)
  set_target_properties(SentencePiece::SentencePiece PROPERTIES
    IMPORTED_LOCATION "${SentencePiece_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SentencePiece_INCLUDE_DIR}")
  if(PC_SentencePiece_CFLAGS_OTHER)
    set_target_properties(SentencePiece::SentencePiece PROPERTIES
      INTERFACE_COMPILE_OPTIONS "${PC_SentencePiece_CFLAGS_OTHER}")
  endif()
endif()
mark_as_advanced(SentencePiece_INCLUDE_DIR SentencePiece_LIBRARY)
