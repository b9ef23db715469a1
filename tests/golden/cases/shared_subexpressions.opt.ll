program: 1 phases, 0 columns, 5 scalars (those not listed start at 0)
  s0 = 0.5
  s2 = 6
  s3 = 0.25
  s4 = 0.75
  s1 = in0
phase 0
  region 'a..c': 10 nodes, for each item i:
    v0 = Abs in1[i]   ; %1
    v1 = Log1p v0   ; %2
    v2 = Mul 0.5, in2[i]   ; %5
    v3 = Add v1, v2   ; %6
    v4 = Div v1, s1   ; %8
    v5 = Add v3, v4   ; %9
    v6 = Mul v3, 0.25   ; %12
    v7 = Mul v5, 0.75   ; %14
    v8 = Add v6, v7   ; %15
    v9 = Add 6, v8   ; %16
    out0[i] = v3 (NaN made canonical)
    out1[i] = v5 (NaN made canonical)
    out2[i] = v9 (NaN made canonical)
    out3[i] = v9 (NaN made canonical)

; ---- region 'a..c' ----
; ModuleID = 'calcjit.a..c'
source_filename = "calcjit.a..c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@llvm.compiler.used = appending global [2 x ptr] [ptr @_ZGVbN4v_calcjit_vec_Log1p, ptr @_ZGVdN8v_calcjit_vec_Log1p], section "llvm.metadata"

; Function Attrs: nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.a..c(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %price = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %clicks = load ptr, ptr %0, align 8
  %out.a = load ptr, ptr %writes, align 8
  %1 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.b = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.c = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 3
  %out.c1 = load ptr, ptr %3, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %vector.ph

vector.ph:                                        ; preds = %entry
  %q = load float, ptr %scalars, align 4
  %broadcast.splatinsert = insertelement <8 x float> poison, float %q, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %vector.ph
  %index = phi i64 [ 0, %vector.ph ], [ %index.next, %vector.body ]
  %4 = getelementptr inbounds float, ptr %price, i64 %index
  %wide.load = load <8 x i32>, ptr %4, align 4, !llvm.access.group !5
  %5 = and <8 x i32> %wide.load, <i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647>
  %6 = bitcast <8 x i32> %5 to <8 x float>
  %7 = tail call <8 x float> @_ZGVdN8v_calcjit_vec_Log1p(<8 x float> %6) #2
  %8 = getelementptr inbounds float, ptr %clicks, i64 %index
  %wide.load15 = load <8 x float>, ptr %8, align 4, !llvm.access.group !5
  %9 = fmul <8 x float> %wide.load15, <float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01>
  %10 = fadd <8 x float> %7, %9
  %11 = fcmp uno <8 x float> %10, zeroinitializer
  %12 = select <8 x i1> %11, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %10
  %13 = getelementptr inbounds float, ptr %out.a, i64 %index
  store <8 x float> %12, ptr %13, align 4, !llvm.access.group !5
  %14 = fdiv <8 x float> %7, %broadcast.splat
  %15 = fadd <8 x float> %14, %10
  %16 = fcmp uno <8 x float> %15, zeroinitializer
  %17 = select <8 x i1> %16, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %15
  %18 = getelementptr inbounds float, ptr %out.b, i64 %index
  store <8 x float> %17, ptr %18, align 4, !llvm.access.group !5
  %19 = fmul <8 x float> %10, <float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01>
  %20 = fmul <8 x float> %15, <float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01>
  %21 = fadd <8 x float> %19, %20
  %22 = fadd <8 x float> %21, <float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00>
  %23 = fcmp uno <8 x float> %22, zeroinitializer
  %24 = select <8 x i1> %23, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %22
  %25 = getelementptr inbounds float, ptr %out.c, i64 %index
  store <8 x float> %24, ptr %25, align 4, !llvm.access.group !5
  %26 = getelementptr inbounds float, ptr %out.c1, i64 %index
  store <8 x float> %24, ptr %26, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %27 = icmp eq i64 %index.next, %count
  br i1 %27, label %done, label %vector.body, !llvm.loop !6

done:                                             ; preds = %vector.body, %entry
  ret void
}

declare <4 x float> @_ZGVbN4v_calcjit_vec_Log1p(<4 x float>) #1

declare <8 x float> @_ZGVdN8v_calcjit_vec_Log1p(<8 x float>) #1

attributes #0 = { nounwind memory(readwrite, inaccessiblemem: none) "target-cpu"="x86-64-v3" }
attributes #1 = { "target-cpu"="x86-64-v3" }
attributes #2 = { nounwind }

!llvm.linker.options = !{}
!llvm.ident = !{!0}
!llvm.module.flags = !{!1, !2, !3, !4}

!0 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = distinct !{}
!6 = distinct !{!6, !7, !8, !9}
!7 = !{!"llvm.loop.parallel_accesses", !5}
!8 = !{!"llvm.loop.isvectorized", i32 1}
!9 = !{!"llvm.loop.unroll.runtime.disable"}
