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

; Function Attrs: nounwind
define void @calcjit.a..c(ptr noalias nocapture readonly %reads, ptr noalias nocapture readonly %scalars, ptr noalias nocapture readonly %writes, i64 %n, ptr noalias nocapture %stage) local_unnamed_addr #0 {
entry:
  %price = load ptr, ptr %reads, align 8
  %0 = getelementptr inbounds ptr, ptr %reads, i64 1
  %clicks = load ptr, ptr %0, align 8
  %q = load float, ptr %scalars, align 4
  %out.a = load ptr, ptr %writes, align 8
  %1 = getelementptr inbounds ptr, ptr %writes, i64 1
  %out.b = load ptr, ptr %1, align 8
  %2 = getelementptr inbounds ptr, ptr %writes, i64 2
  %out.c = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds ptr, ptr %writes, i64 3
  %out.c1 = load ptr, ptr %3, align 8
  %short = icmp ult i64 %n, 16
  br i1 %short, label %done, label %items.preheader

items.preheader:                                  ; preds = %entry
  %broadcast.splatinsert = insertelement <8 x float> poison, float %q, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %items

items:                                            ; preds = %items.preheader, %stage2.done
  %from = phi i64 [ %end, %stage2.done ], [ 0, %items.preheader ]
  %rest = sub nuw nsw i64 %n, %from
  %4 = add nuw nsw i64 %rest, 15
  %5 = and i64 %4, -16
  %up = tail call i64 @llvm.umin.i64(i64 %5, i64 512)
  %fits.not = icmp ugt i64 %up, %n
  %back = sub nuw nsw i64 %n, %up
  %6 = tail call i64 @llvm.umin.i64(i64 %back, i64 %from)
  %block = select i1 %fits.not, i64 %from, i64 %6
  %7 = select i1 %fits.not, i64 %rest, i64 %up
  %length = and i64 %7, -16
  %no.items = icmp eq i64 %length, 0
  br i1 %no.items, label %done, label %vector.body27

vector.body27:                                    ; preds = %items, %vector.body27
  %index28 = phi i64 [ %index.next30, %vector.body27 ], [ 0, %items ]
  %8 = add nuw nsw i64 %index28, %block
  %9 = getelementptr inbounds float, ptr %price, i64 %8
  %wide.load29 = load <8 x i32>, ptr %9, align 4, !llvm.access.group !5
  %10 = and <8 x i32> %wide.load29, <i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647>
  %11 = getelementptr inbounds float, ptr %stage, i64 %index28
  store <8 x i32> %10, ptr %11, align 4, !llvm.access.group !5
  %index.next30 = add nuw i64 %index28, 8
  %12 = icmp eq i64 %index.next30, %length
  br i1 %12, label %stage0.done, label %vector.body27, !llvm.loop !6

done:                                             ; preds = %stage2.done, %items, %entry
  ret void

stage0.done:                                      ; preds = %vector.body27
  tail call void @calcjit_col_Log1p_avx2(ptr nonnull %stage, ptr nonnull %stage, i64 %length) #3
  br label %vector.body

vector.body:                                      ; preds = %vector.body, %stage0.done
  %index = phi i64 [ 0, %stage0.done ], [ %index.next, %vector.body ]
  %13 = add nuw nsw i64 %index, %block
  %14 = getelementptr inbounds float, ptr %stage, i64 %index
  %wide.load = load <8 x float>, ptr %14, align 4, !llvm.access.group !5
  %15 = getelementptr inbounds float, ptr %clicks, i64 %13
  %wide.load18 = load <8 x float>, ptr %15, align 4, !llvm.access.group !5
  %16 = fmul <8 x float> %wide.load18, <float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01>
  %17 = fadd <8 x float> %wide.load, %16
  %18 = fcmp uno <8 x float> %17, zeroinitializer
  %19 = select <8 x i1> %18, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %17
  %20 = getelementptr inbounds float, ptr %out.a, i64 %13
  store <8 x float> %19, ptr %20, align 4, !llvm.access.group !5
  %21 = fdiv <8 x float> %wide.load, %broadcast.splat
  %22 = fadd <8 x float> %21, %17
  %23 = fcmp uno <8 x float> %22, zeroinitializer
  %24 = select <8 x i1> %23, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %22
  %25 = getelementptr inbounds float, ptr %out.b, i64 %13
  store <8 x float> %24, ptr %25, align 4, !llvm.access.group !5
  %26 = fmul <8 x float> %17, <float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01>
  %27 = fmul <8 x float> %22, <float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01>
  %28 = fadd <8 x float> %26, %27
  %29 = fadd <8 x float> %28, <float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00>
  %30 = fcmp uno <8 x float> %29, zeroinitializer
  %31 = select <8 x i1> %30, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %29
  %32 = getelementptr inbounds float, ptr %out.c, i64 %13
  store <8 x float> %31, ptr %32, align 4, !llvm.access.group !5
  %33 = getelementptr inbounds float, ptr %out.c1, i64 %13
  store <8 x float> %31, ptr %33, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %34 = icmp eq i64 %index.next, %length
  br i1 %34, label %stage2.done, label %vector.body, !llvm.loop !10

stage2.done:                                      ; preds = %vector.body
  %end = add nuw nsw i64 %block, %length
  %.not = icmp ult i64 %end, %n
  br i1 %.not, label %items, label %done
}

declare void @calcjit_col_Log1p_avx2(ptr, ptr, i64) local_unnamed_addr #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #2

attributes #0 = { nounwind "target-cpu"="x86-64-v3" }
attributes #1 = { "target-cpu"="x86-64-v3" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind }

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
!10 = distinct !{!10, !7, !8, !9}
