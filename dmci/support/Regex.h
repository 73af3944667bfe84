// <regex>, included without GCC 12's false -Wmaybe-uninitialized inside std::function (GCC bug 105562).
#pragma once
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
