program: 1 phases, 0 columns, 0 scalars (those not listed start at 0)
phase 0
  region 'f_qux': 2 nodes, for each item i:
    v0 = Add in1[i], in2[i]   ; %3
    v1 = Div in0[i], v0   ; %4
    out0[i] = v1 (NaN made canonical)

; ---- region 'f_qux' ----
; ModuleID = 'calcjit.f_qux'
source_filename = "calcjit.f_qux"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.f_qux(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %f_bar = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %f_baz = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 2
  %f_foo = load ptr, ptr %1, align 8
  %out.f_qux = load ptr, ptr %writes, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %vector.body

vector.body:                                      ; preds = %entry, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %entry ]
  %2 = getelementptr inbounds float, ptr %f_bar, i64 %index
  %wide.load = load <8 x float>, ptr %2, align 4, !llvm.access.group !5
  %3 = getelementptr inbounds float, ptr %f_baz, i64 %index
  %wide.load5 = load <8 x float>, ptr %3, align 4, !llvm.access.group !5
  %4 = fadd <8 x float> %wide.load, %wide.load5
  %5 = getelementptr inbounds float, ptr %f_foo, i64 %index
  %wide.load6 = load <8 x float>, ptr %5, align 4, !llvm.access.group !5
  %6 = fdiv <8 x float> %wide.load6, %4
  %7 = fcmp uno <8 x float> %6, zeroinitializer
  %8 = select <8 x i1> %7, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %6
  %9 = getelementptr inbounds float, ptr %out.f_qux, i64 %index
  store <8 x float> %8, ptr %9, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %10 = icmp eq i64 %index.next, %count
  br i1 %10, label %done, label %vector.body, !llvm.loop !6

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
