// The producers, one line each, in the order paths and content are tried: the first whose
// resolve() claims a path reads it, the first whose recognises() says yes owns a JSON trace.
// No include guard: registry.cpp includes this list twice with its own RS_PRODUCER.
RS_PRODUCER(torchNpu)       // torch_npu text export: trace_view.json (torchnpu/)
RS_PRODUCER(torchNpuDb)     // torch_npu database export: ascend_pytorch_profiler_N.db (torchnpudb/)
RS_PRODUCER(kineto)         // PyTorch Kineto, NCCL / RCCL (kineto/)
RS_PRODUCER(flightRecorder) // PyTorch Flight Recorder dumps, told by content (flightrecorder/)
RS_PRODUCER(nsys)           // NVIDIA Nsight Systems: its SQLite export, *.nsys-rep (nsys/)
RS_PRODUCER(generic)        // any Chrome trace; last: takes every JSON file (generic/)
