// The registry: the only list of kernel families.
//
// FamilyParams has one alternative per family, in preference order (the
// first family with a default for a problem provides the built-in default).
// Each alternative names its family (P::Family), and every use that must
// treat families differently goes through std::visit over FamilyParams, so
// adding an alternative without its family does not compile.
//
// Adding a family: its .cu file, its <name>_family.h/.cpp pair, one
// alternative here, and one line in kernel_templates/CMakeLists.txt.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "autogemm/gemv_family.h"
#include "autogemm/generic_family.h"
#include "autogemm/tf32x3_family.h"
#include "autogemm/tf32x3wg_family.h"
#include "autogemm/tiled_family.h"
#include "autogemm/warptiled_family.h"

namespace autogemm {

using FamilyParams =
    std::variant<WarpTiledParams, TiledParams, GemvParams, GenericParams, Tf32x3Params, Tf32x3WgParams>;

/// Every family, in registry order.
const std::vector<const KernelFamily*>& all_families();

/// The family called `name`, or nullptr.
const KernelFamily* find_family(const std::string& name);

/// The family whose parameters `p` holds.
const KernelFamily& family_of(const FamilyParams& p);

}  // namespace autogemm
