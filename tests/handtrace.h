// SPDX-License-Identifier: GPL-3.0-or-later
// A hand-written Kineto trace shared by the tools' tests (tst_flame, tst_notes, tst_tools): two
// steps on one thread, each aten::linear -> aten::mm -> cudaLaunchKernel, each launching a gemm.
//   step 1 [0, 100) µs: linear [10, 60), mm [20, 50), launch [30, 40) -> gemm [45, 95)
//   step 2 [100, 200) µs: linear [110, 180), mm [120, 170), launch [130, 140) -> gemm [150, 230)
#pragma once

namespace gmltest {

inline constexpr char kHandTrace[] = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":110,"dur":70},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":120,"dur":50},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":130,"dur":10,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":45,"dur":50,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":150,"dur":80,"args":{"correlation":2,"device":0,"stream":7}}
]})J";

} // namespace gmltest
