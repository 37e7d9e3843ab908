// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "modelzoo.h"

namespace gml {
class Project;
}

namespace gml::sim {

// The layer graph of a measured run, so that the strategy simulator can run "this job" on
// another cluster. From the run's dependency graph, its median iteration (ProfilerStep#N) on
// its first rank: the GPU kernels split into forward, backward and optimizer by the CPU ops
// that launched them (autograd's backward functions, Optimizer.step#), the forward kernels
// grouped into layers at each compute-bound kernel (a convolution or GEMM with the element-wise
// kernels after it), each named by the operator that launched it. A layer keeps its measured
// kernel time (scaled by batch, and by device for its compute- and memory-bound parts) and the
// GPU idle time within it (kept as is). The backward pass, which profilers do not tie to
// forward layers, is shared among them in proportion to their forward time; so are the
// parameters, whose total comes from the measured gradient all-reduces (fp32), else from the
// optimizer's kernel time at the device's memory bandwidth. Collectives and host copies are
// left out: the simulator models them itself. The batch is the first dimension of the input of
// the operator that launched the first compute-bound kernel (Input Dims), else the run's
// batch_size param.
std::optional<LayerGraph> layerGraphFromRun(Project &project, RunId run, QString *error);

} // namespace gml::sim
