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

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none)
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
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %entry, %stage0.done
  %from = phi i64 [ %end, %stage0.done ], [ 0, %entry ]
  %rest = sub nuw nsw i64 %n, %from
  %3 = add nuw nsw i64 %rest, 15
  %4 = and i64 %3, -16
  %up = tail call i64 @llvm.umin.i64(i64 %4, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %5 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %5
  %6 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %6, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body

vector.body:                                      ; preds = %items, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %items ]
  %7 = add nuw nsw i64 %index, %block
  %8 = getelementptr inbounds float, ptr %price, i64 %7
  %wide.load = load <8 x float>, ptr %8, align 4, !llvm.access.group !5
  %9 = bitcast <8 x float> %wide.load to <8 x i32>
  %10 = xor <8 x i32> %9, <i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648, i32 -2147483648>
  %11 = getelementptr inbounds float, ptr %out.cheapest, i64 %7
  store <8 x i32> %10, ptr %11, align 4, !llvm.access.group !5
  %12 = getelementptr inbounds float, ptr %rating, i64 %7
  %wide.load3 = load <8 x float>, ptr %12, align 4, !llvm.access.group !5
  %13 = fmul <8 x float> %wide.load, %wide.load3
  %14 = getelementptr inbounds float, ptr %out.under5, i64 %7
  store <8 x float> %13, ptr %14, align 4, !llvm.access.group !5
  %15 = fsub <8 x float> %wide.load3, %wide.load
  %16 = getelementptr inbounds float, ptr %out.kept, i64 %7
  store <8 x float> %15, ptr %16, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %17 = icmp eq i64 %index.next, %length
  br i1 %17, label %stage0.done, label %vector.body, !llvm.loop !6

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

stage0.done:                                      ; preds = %vector.body
  %end = add nuw nsw i64 %block, %length
  %.not = icmp ult i64 %end, %n
  br i1 %.not, label %items, label %done
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #1

attributes #0 = { nofree nosync nounwind memory(readwrite, inaccessiblemem: none) "target-cpu"="x86-64-v3" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

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

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.kept(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %kept = load ptr, ptr %reads, align 8
  %out.kept = load ptr, ptr %writes, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %entry, %stage0.done
  %from = phi i64 [ %end, %stage0.done ], [ 0, %entry ]
  %rest = sub nuw nsw i64 %n, %from
  %0 = add nuw nsw i64 %rest, 15
  %1 = and i64 %0, -16
  %up = tail call i64 @llvm.umin.i64(i64 %1, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %2 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %2
  %3 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %3, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body

vector.body:                                      ; preds = %items, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %items ]
  %4 = add nuw nsw i64 %index, %block
  %5 = getelementptr inbounds float, ptr %kept, i64 %4
  %wide.load = load <8 x float>, ptr %5, align 4, !llvm.access.group !5
  %6 = fcmp olt <8 x float> %wide.load, <float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00>
  %7 = select <8 x i1> %6, <8 x float> <float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00>, <8 x float> zeroinitializer
  %8 = fadd <8 x float> %wide.load, %7
  %9 = fcmp uno <8 x float> %8, zeroinitializer
  %10 = select <8 x i1> %9, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %8
  %11 = getelementptr inbounds float, ptr %out.kept, i64 %4
  store <8 x float> %10, ptr %11, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %12 = icmp eq i64 %index.next, %length
  br i1 %12, label %stage0.done, label %vector.body, !llvm.loop !6

done:                                             ; preds = %stage0.done, %items, %entry
  ret void

stage0.done:                                      ; preds = %vector.body
  %end = add nuw nsw i64 %block, %length
  %.not = icmp ult i64 %end, %n
  br i1 %.not, label %items, label %done
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #1

attributes #0 = { nofree nosync nounwind memory(readwrite, inaccessiblemem: none) "target-cpu"="x86-64-v3" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

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
