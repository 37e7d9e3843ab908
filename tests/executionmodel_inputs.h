// SPDX-License-Identifier: GPL-3.0-or-later
// The hand-made traces of tst_executionmodel (kept out of the moc-parsed file: moc misreads
// raw string literals).
#pragma once

// Two iterations on the main thread: a DataLoader scope, a module scope holding aten::linear
// (which holds aten::addmm and the launch), a kernel it launched, and a backward op on the
// autograd thread outside any range on that thread.
inline constexpr char kHandMadeTrace[] = R"({"traceEvents":[
          {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
          {"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_Iter.__next__","pid":1,"tid":1,"ts":1,"dur":9},
          {"ph":"X","cat":"user_annotation","name":"nn.Module: Net","pid":1,"tid":1,"ts":10,"dur":40},
          {"ph":"X","cat":"user_annotation","name":"nn.Module: Linear","pid":1,"tid":1,"ts":11,"dur":30},
          {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":12,"dur":20},
          {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":13,"dur":15},
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":14,"dur":5,"args":{"correlation":7}},
          {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":30,"args":{"correlation":7}},
          {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":60,"dur":5},
          {"ph":"X","cat":"cpu_op","name":"LinearBackward0","pid":1,"tid":2,"ts":70,"dur":10},
          {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":50},
          {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":110,"dur":5}
        ]})";

// Two iterations of one operator each, for the CLI's formats.
inline constexpr char kTwoIterations[] = R"([
          {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
          {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":20},
          {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100},
          {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":110,"dur":20}])";
