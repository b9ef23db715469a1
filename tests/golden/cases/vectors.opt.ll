program: 1 phases, 2 columns, 4 scalars (those not listed start at 0)
  s1 = 1
phase 0
  step Cosine col0 = in0, in1   ; %0
  step L2Distance col1 = in0, in1   ; %1
  step Norm s0 = in1   ; %2
  once Mul s3 = s0, s2   ; %7
  region 'blend': 3 nodes, for each item i:
    v0 = Add col1[i], 1   ; %4
    v1 = Div col0[i], v0   ; %5
    v2 = Add v1, s3   ; %8
    out3[i] = v2 (NaN made canonical)
  store out0 = col0 (NaN made canonical)
  store out1 = col1 (NaN made canonical)
fill out2 = s0

; ---- region 'blend' ----
; ModuleID = 'calcjit.blend'
source_filename = "calcjit.blend"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.blend(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %distance = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %similarity = load ptr, ptr %0, align 8
  %blend = load float, ptr %scalars, align 4
  %out.blend = load ptr, ptr %writes, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items.preheader

items.preheader:                                  ; preds = %entry
  %broadcast.splatinsert = insertelement <8 x float> poison, float %blend, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %items

items:                                            ; preds = %items.preheader, %stage0.done
  %from = phi i64 [ %end, %stage0.done ], [ 0, %items.preheader ]
  %rest = sub nuw nsw i64 %n, %from
  %1 = add nuw nsw i64 %rest, 15
  %2 = and i64 %1, -16
  %up = tail call i64 @llvm.umin.i64(i64 %2, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %3 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %3
  %4 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %4, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body

vector.body:                                      ; preds = %items, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %items ]
  %5 = add nuw nsw i64 %index, %block
  %6 = getelementptr inbounds float, ptr %distance, i64 %5
  %wide.load = load <8 x float>, ptr %6, align 4, !llvm.access.group !5
  %7 = fadd <8 x float> %wide.load, <float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00>
  %8 = getelementptr inbounds float, ptr %similarity, i64 %5
  %wide.load6 = load <8 x float>, ptr %8, align 4, !llvm.access.group !5
  %9 = fdiv <8 x float> %wide.load6, %7
  %10 = fadd <8 x float> %broadcast.splat, %9
  %11 = fcmp uno <8 x float> %10, zeroinitializer
  %12 = select <8 x i1> %11, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %10
  %13 = getelementptr inbounds float, ptr %out.blend, i64 %5
  store <8 x float> %12, ptr %13, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %14 = icmp eq i64 %index.next, %length
  br i1 %14, label %stage0.done, label %vector.body, !llvm.loop !6

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
