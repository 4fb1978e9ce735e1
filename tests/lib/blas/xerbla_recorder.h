// A test program's own XERBLA, as sblat3 has one: it records each call
// (routine name with its hidden length, INFO) instead of stopping.
#pragma once

#include <string>
#include <vector>

struct XerblaCall {
  std::string name;
  int info;
};

/// The calls recorded so far; tests clear it before each bad call.
std::vector<XerblaCall>& xerbla_calls();
