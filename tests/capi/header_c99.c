/* softalign.h compiles as strict C99 (warnings as errors). */
#include <softalign/softalign.h>

int softalign_header_c99_compiles(void) { return SOFTALIGN_OK; }
