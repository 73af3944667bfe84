// Placeholder while the oracle is being written.
#include "oracle/Oracle.h"
