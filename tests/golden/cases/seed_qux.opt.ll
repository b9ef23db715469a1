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

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none)
define void @calcjit.f_qux(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture readnone %stage) local_unnamed_addr #0 {
entry:
  %f_bar = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %f_baz = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds ptr, ptr %reads, i64 2
  %f_foo = load ptr, ptr %1, align 8
  %out.f_qux = load ptr, ptr %writes, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %entry, %stage0.done
  %from = phi i64 [ %end, %stage0.done ], [ 0, %entry ]
  %rest = sub nuw nsw i64 %n, %from
  %2 = add nuw nsw i64 %rest, 15
  %3 = and i64 %2, -16
  %up = tail call i64 @llvm.umin.i64(i64 %3, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %4 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %4
  %5 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %5, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body

vector.body:                                      ; preds = %items, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %items ]
  %6 = add nuw nsw i64 %index, %block
  %7 = getelementptr inbounds float, ptr %f_bar, i64 %6
  %wide.load = load <8 x float>, ptr %7, align 4, !llvm.access.group !5
  %8 = getelementptr inbounds float, ptr %f_baz, i64 %6
  %wide.load5 = load <8 x float>, ptr %8, align 4, !llvm.access.group !5
  %9 = fadd <8 x float> %wide.load, %wide.load5
  %10 = getelementptr inbounds float, ptr %f_foo, i64 %6
  %wide.load6 = load <8 x float>, ptr %10, align 4, !llvm.access.group !5
  %11 = fdiv <8 x float> %wide.load6, %9
  %12 = fcmp uno <8 x float> %11, zeroinitializer
  %13 = select <8 x i1> %12, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %11
  %14 = getelementptr inbounds float, ptr %out.f_qux, i64 %6
  store <8 x float> %13, ptr %14, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %15 = icmp eq i64 %index.next, %length
  br i1 %15, label %stage0.done, label %vector.body, !llvm.loop !6

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
