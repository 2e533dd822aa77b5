/* softalign — SOFTALIGN_API marks the public C and C++ API (C99 and C++).
 *
 * The library is compiled with hidden visibility (and a linker version script
 * on ELF platforms): only what a public header marks SOFTALIGN_API is
 * exported by libsoftalign.so. SOFTALIGN_BUILDING_LIBRARY is defined while
 * the library itself is compiled; applications never define it. */
#ifndef SOFTALIGN_EXPORT_H
#define SOFTALIGN_EXPORT_H

#if defined(_WIN32)
#  if defined(SOFTALIGN_BUILDING_LIBRARY)
#    define SOFTALIGN_API __declspec(dllexport)
#  else
#    define SOFTALIGN_API
#  endif
#else
#  define SOFTALIGN_API __attribute__((visibility("default")))
#endif

#endif /* SOFTALIGN_EXPORT_H */
