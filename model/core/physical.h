// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a measurement can be. A recorded shape, FLOP count or memory event outside these bounds
// is not a measurement of any machine (a corrupted or hostile trace, a wrapped integer): it is
// dropped and counted with a warning naming the op, never summed into a headline. Each bound
// has its reason beside it; none is near what real traces hold.
#include <optional>
#include <string_view>

namespace gml::physical {

// Elements of one tensor: 2^48 (256 Ti elements; 512 TiB at fp16). No machine holds a tensor
// that large in one process: the largest GPUs have 0.3 TB, the largest hosts a few TB.
inline constexpr double kMaxTensorElements = 281474976710656.0; // 2^48
// One dimension of a shape: the same bound (a dimension is at most its tensor's size).
inline constexpr double kMaxDimension = kMaxTensorElements;
// FLOPs of one operator: 2^60 (1.15e18): more than 1,000 s of the fastest GPU's dense peak
// (about 2.5e15 FLOP/s at FP8 on a B200) in a single op.
inline constexpr double kMaxOpFlops = 1152921504606846976.0; // 2^60
// Bytes of one allocation, and a device's allocated or reserved total: 2^42 (4 TiB), above the
// memory of any device a profiler reports (GPUs 288 GB, hosts' allocators a few TB).
inline constexpr double kMaxDeviceBytes = 4398046511104.0; // 2^42

// A recorded FLOP count (Kineto's "flops" arg): the number when it is finite, 0 or more and
// at most kMaxOpFlops; nullopt otherwise (also when the text is not a number).
std::optional<double> recordedFlops(std::string_view text);

// A utilisation (MFU, HFU, a busy share): the value when it is finite and within [0, 1] (a
// rounding's 1e-9 above 1 allowed and clamped); nullopt otherwise, for the caller to drop with
// a warning.
std::optional<double> utilisation(double value);

} // namespace gml::physical
