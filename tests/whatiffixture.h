// SPDX-License-Identifier: GPL-3.0-or-later
// The small run the what-if tests predict by hand, shared with the simulator inputs' fuzzer.
#pragma once

namespace gmltest {

// One thread launching k1, k2 (stream 7) and an all-reduce (stream 20), then synchronising the
// device and running one more CPU op. Times in µs:
//   A launch k1 [0,10)   B launch k2 [20,30)   C launch nccl [40,50)
//   D cudaDeviceSynchronize [60,300)   E aten::add [310,330)
//   k1 [15,115)   k2 [115,215)   nccl [217,297): waits for k2 (stream wait, 2 µs after it)
inline constexpr char kWhatIfTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":40,"dur":10,"args":{"correlation":3}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":60,"dur":240,"args":{"correlation":4}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":310,"dur":20,"args":{}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":15,"dur":100,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":115,"dur":100,"args":{"correlation":2,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)","pid":0,"tid":20,"ts":217,"dur":80,"args":{"correlation":3,"device":0,"stream":20}}
]})J";

} // namespace gmltest
