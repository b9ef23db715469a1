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

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none)
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
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items

items:                                            ; preds = %entry, %stage0.done
  %from = phi i64 [ %end, %stage0.done ], [ 0, %entry ]
  %rest = sub nuw nsw i64 %n, %from
  %9 = add nuw nsw i64 %rest, 15
  %10 = and i64 %9, -16
  %up = tail call i64 @llvm.umin.i64(i64 %10, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %11 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %11
  %12 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %12, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body

vector.body:                                      ; preds = %items, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %items ]
  %13 = add nuw nsw i64 %index, %block
  %14 = getelementptr inbounds float, ptr %x0, i64 %13
  %wide.load = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %15 = getelementptr inbounds float, ptr %x1, i64 %13
  %wide.load19 = load <8 x float>, ptr %15, align 4, !llvm.access.group !5
  %16 = fadd <8 x float> %wide.load, %wide.load19
  %17 = getelementptr inbounds float, ptr %x2, i64 %13
  %wide.load20 = load <8 x float>, ptr %17, align 4, !llvm.access.group !5
  %18 = fadd <8 x float> %16, %wide.load20
  %19 = getelementptr inbounds float, ptr %x3, i64 %13
  %wide.load21 = load <8 x float>, ptr %19, align 4, !llvm.access.group !5
  %20 = fadd <8 x float> %18, %wide.load21
  %21 = getelementptr inbounds float, ptr %x4, i64 %13
  %wide.load22 = load <8 x float>, ptr %21, align 4, !llvm.access.group !5
  %22 = fadd <8 x float> %20, %wide.load22
  %23 = getelementptr inbounds float, ptr %x5, i64 %13
  %wide.load23 = load <8 x float>, ptr %23, align 4, !llvm.access.group !5
  %24 = fadd <8 x float> %22, %wide.load23
  %25 = getelementptr inbounds float, ptr %x6, i64 %13
  %wide.load24 = load <8 x float>, ptr %25, align 4, !llvm.access.group !5
  %26 = fadd <8 x float> %24, %wide.load24
  %27 = getelementptr inbounds float, ptr %x7, i64 %13
  %wide.load25 = load <8 x float>, ptr %27, align 4, !llvm.access.group !5
  %28 = fadd <8 x float> %26, %wide.load25
  %29 = getelementptr inbounds float, ptr %x8, i64 %13
  %wide.load26 = load <8 x float>, ptr %29, align 4, !llvm.access.group !5
  %30 = fadd <8 x float> %28, %wide.load26
  %31 = getelementptr inbounds float, ptr %x9, i64 %13
  %wide.load27 = load <8 x float>, ptr %31, align 4, !llvm.access.group !5
  %32 = fadd <8 x float> %30, %wide.load27
  %33 = fcmp uno <8 x float> %32, zeroinitializer
  %34 = select <8 x i1> %33, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %32
  %35 = getelementptr inbounds float, ptr %out.s, i64 %13
  store <8 x float> %34, ptr %35, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %36 = icmp eq i64 %index.next, %length
  br i1 %36, label %stage0.done, label %vector.body, !llvm.loop !6

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
