program: 1 phases, 0 columns, 0 scalars (those not listed start at 0)
phase 0
  region 's': 9 nodes, for each item i:
    v0 = Add in0[i], in1[i]   ; %2
    v1 = Add v0, in2[i]   ; %4
    v2 = Add v1, in3[i]   ; %6
    v3 = Add v2, in4[i]   ; %8
    v4 = Add v3, in5[i]   ; %10
    v5 = Add v4, in6[i]   ; %12
    v6 = Add v5, in7[i]   ; %14
    v7 = Add v6, in8[i]   ; %16
    v8 = Add v7, in9[i]   ; %18
    out0[i] = v8 (NaN made canonical)

; ---- region 's' ----
; ModuleID = 'calcjit.s'
source_filename = "calcjit.s"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.s(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %x0 = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %x1 = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 2
  %x2 = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %reads, i64 3
  %x3 = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %reads, i64 4
  %x4 = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds ptr, ptr %reads, i64 5
  %x5 = load ptr, ptr %4, align 8
  %5 = getelementptr inbounds ptr, ptr %reads, i64 6
  %x6 = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds ptr, ptr %reads, i64 7
  %x7 = load ptr, ptr %6, align 8
  %7 = getelementptr inbounds ptr, ptr %reads, i64 8
  %x8 = load ptr, ptr %7, align 8
  %8 = getelementptr inbounds ptr, ptr %reads, i64 9
  %x9 = load ptr, ptr %8, align 8
  %out.s = load ptr, ptr %writes, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %vector.body

vector.body:                                      ; preds = %entry, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %entry ]
  %9 = getelementptr inbounds float, ptr %x0, i64 %index
  %wide.load = load <8 x float>, ptr %9, align 4, !llvm.access.group !5
  %10 = getelementptr inbounds float, ptr %x1, i64 %index
  %wide.load19 = load <8 x float>, ptr %10, align 4, !llvm.access.group !5
  %11 = fadd <8 x float> %wide.load, %wide.load19
  %12 = getelementptr inbounds float, ptr %x2, i64 %index
  %wide.load20 = load <8 x float>, ptr %12, align 4, !llvm.access.group !5
  %13 = fadd <8 x float> %11, %wide.load20
  %14 = getelementptr inbounds float, ptr %x3, i64 %index
  %wide.load21 = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %15 = fadd <8 x float> %13, %wide.load21
  %16 = getelementptr inbounds float, ptr %x4, i64 %index
  %wide.load22 = load <8 x float>, ptr %16, align 4, !llvm.access.group !5
  %17 = fadd <8 x float> %15, %wide.load22
  %18 = getelementptr inbounds float, ptr %x5, i64 %index
  %wide.load23 = load <8 x float>, ptr %18, align 4, !llvm.access.group !5
  %19 = fadd <8 x float> %17, %wide.load23
  %20 = getelementptr inbounds float, ptr %x6, i64 %index
  %wide.load24 = load <8 x float>, ptr %20, align 4, !llvm.access.group !5
  %21 = fadd <8 x float> %19, %wide.load24
  %22 = getelementptr inbounds float, ptr %x7, i64 %index
  %wide.load25 = load <8 x float>, ptr %22, align 4, !llvm.access.group !5
  %23 = fadd <8 x float> %21, %wide.load25
  %24 = getelementptr inbounds float, ptr %x8, i64 %index
  %wide.load26 = load <8 x float>, ptr %24, align 4, !llvm.access.group !5
  %25 = fadd <8 x float> %23, %wide.load26
  %26 = getelementptr inbounds float, ptr %x9, i64 %index
  %wide.load27 = load <8 x float>, ptr %26, align 4, !llvm.access.group !5
  %27 = fadd <8 x float> %25, %wide.load27
  %28 = fcmp uno <8 x float> %27, zeroinitializer
  %29 = select <8 x i1> %28, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %27
  %30 = getelementptr inbounds float, ptr %out.s, i64 %index
  store <8 x float> %29, ptr %30, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %31 = icmp eq i64 %index.next, %count
  br i1 %31, label %done, label %vector.body, !llvm.loop !6

done:                                             ; preds = %vector.body, %entry
  ret void
}

attributes #0 = { nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none) "target-cpu"="x86-64-v3" }

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
