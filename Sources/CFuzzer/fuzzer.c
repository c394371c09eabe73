// The declaration in include/CFuzzer.h is all there is; libFuzzer defines the function.
#include "CFuzzer.h"
