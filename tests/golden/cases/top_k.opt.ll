program: 2 phases, 7 columns, 1 scalars (those not listed start at 0)
  s0 = 3
phase 0
  region 'cheapest..kept': 3 nodes, for each item i:
    v0 = Neg in0[i]   ; %1
    v1 = Mul in0[i], in1[i]   ; %5
    v2 = Sub in1[i], in0[i]   ; %7
    col0[i] = v0
    col3[i] = v1
    col5[i] = v2
phase 1
  step RankAtMost col1 = col0, bound 1   ; %2
  step RankAtMost col2 = in1, bound 10   ; %4
  step RankAtMost col4 = col3, bound 4.9999995   ; %6
  step Rank col6 = col5   ; %8
  region 'kept': 2 nodes, for each item i:
    v0 = Lt col6[i], 3   ; %10
    v1 = Add col6[i], v0   ; %11
    out3[i] = v1 (NaN made canonical)
  store out0 = col1 (NaN made canonical)
  store out1 = col2 (NaN made canonical)
  store out2 = col4 (NaN made canonical)

; ---- region 'cheapest..kept' ----
; ModuleID = 'calcjit.cheapest..kept'
source_filename = "calcjit.cheapest..kept"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.cheapest..kept(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %price = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %rating = load ptr, ptr %0, align 8
  %out.cheapest = load ptr, ptr %writes, align 8
  %1 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.under5 = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.kept = load ptr, ptr %2, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %vector.body

vector.body:                                      ; preds = %entry, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %entry ]
  %3 = getelementptr inbounds float, ptr %price, i64 %index
  %wide.load = load <8 x float>, ptr %3, align 4, !llvm.access.group !5
  %4 = bitcast <8 x float> %wide.load to <8 x i32>
  %5 = xor <8 x i32> %4, <i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648>
  %6 = getelementptr inbounds float, ptr %out.cheapest, i64 %index
  store <8 x i32> %5, ptr %6, align 4, !llvm.access.group !5
  %7 = getelementptr inbounds float, ptr %rating, i64 %index
  %wide.load3 = load <8 x float>, ptr %7, align 4, !llvm.access.group !5
  %8 = fmul <8 x float> %wide.load, %wide.load3
  %9 = getelementptr inbounds float, ptr %out.under5, i64 %index
  store <8 x float> %8, ptr %9, align 4, !llvm.access.group !5
  %10 = fsub <8 x float> %wide.load3, %wide.load
  %11 = getelementptr inbounds float, ptr %out.kept, i64 %index
  store <8 x float> %10, ptr %11, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %12 = icmp eq i64 %index.next, %count
  br i1 %12, label %done, label %vector.body, !llvm.loop !6

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

; ---- region 'kept' ----
; ModuleID = 'calcjit.kept'
source_filename = "calcjit.kept"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.kept(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %kept = load ptr, ptr %reads, align 8
  %out.kept = load ptr, ptr %writes, align 8
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %vector.body

vector.body:                                      ; preds = %entry, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %entry ]
  %0 = getelementptr inbounds float, ptr %kept, i64 %index
  %wide.load = load <8 x float>, ptr %0, align 4, !llvm.access.group !5
  %1 = fcmp olt <8 x float> %wide.load, <float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00>
  %2 = select <8 x i1> %1, <8 x float> <float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00>, <8 x float> zeroinitializer
  %3 = fadd <8 x float> %wide.load, %2
  %4 = fcmp uno <8 x float> %3, zeroinitializer
  %5 = select <8 x i1> %4, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %3
  %6 = getelementptr inbounds float, ptr %out.kept, i64 %index
  store <8 x float> %5, ptr %6, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %7 = icmp eq i64 %index.next, %count
  br i1 %7, label %done, label %vector.body, !llvm.loop !6

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
