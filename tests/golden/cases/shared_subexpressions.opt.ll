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
  %count = and i64 %n, -16
  %empty = icmp eq i64 %count, 0
  br i1 %empty, label %done, label %items.preheader

items.preheader:                                  ; preds = %entry
  %broadcast.splatinsert = insertelement <8 x float> poison, float %q, i64 0
  %broadcast.splat = shufflevector <8 x float> %broadcast.splatinsert, <8 x float> poison, <8 x i32> zeroinitializer
  br label %items

items:                                            ; preds = %items.preheader, %stage2.done
  %indvar = phi i64 [ %indvar.next, %stage2.done ], [ 0, %items.preheader ]
  %block = phi i64 [ %next.block, %stage2.done ], [ 0, %items.preheader ]
  %4 = shl i64 %indvar, 9
  %5 = sub i64 %count, %4
  %umin19 = tail call i64 @llvm.umin.i64(i64 %5, i64 512)
  %6 = shl i64 %indvar, 9
  %7 = sub i64 %count, %6
  %umin = tail call i64 @llvm.umin.i64(i64 %7, i64 512)
  %rest = sub nuw nsw i64 %count, %block
  %8 = tail call i64 @llvm.umin.i64(i64 %rest, i64 512)
  %min.iters.check22 = icmp eq i64 %umin19, 0
  br i1 %min.iters.check22, label %stage0, label %vector.body28

vector.body28:                                    ; preds = %items, %vector.body28
  %index29 = phi i64 [ %index.next31, %vector.body28 ], [ 0, %items ]
  %9 = add nuw nsw i64 %index29, %block
  %10 = getelementptr inbounds float, ptr %price, i64 %9
  %wide.load30 = load <8 x i32>, ptr %10, align 4, !llvm.access.group !5
  %11 = and <8 x i32> %wide.load30, <i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647, i32 2147483647>
  %12 = getelementptr inbounds float, ptr %stage, i64 %index29
  store <8 x i32> %11, ptr %12, align 4, !llvm.access.group !5
  %index.next31 = add nuw i64 %index29, 8
  %13 = icmp eq i64 %index.next31, %umin19
  br i1 %13, label %stage0.done, label %vector.body28, !llvm.loop !6

done:                                             ; preds = %stage2.done, %entry
  ret void

stage0:                                           ; preds = %items, %stage0
  %j = phi i64 [ %next, %stage0 ], [ 0, %items ]
  %i = add nuw nsw i64 %j, %block
  %14 = getelementptr inbounds float, ptr %price, i64 %i
  %price217 = load i32, ptr %14, align 4, !llvm.access.group !5
  %15 = and i32 %price217, 2147483647
  %16 = getelementptr inbounds float, ptr %stage, i64 %j
  store i32 %15, ptr %16, align 4, !llvm.access.group !5
  %next = add nuw nsw i64 %j, 1
  %17 = icmp eq i64 %next, %8
  br i1 %17, label %stage0.done, label %stage0, !llvm.loop !10

stage0.done:                                      ; preds = %vector.body28, %stage0
  tail call void @calcjit_col_Log1p_avx2(ptr nonnull %stage, ptr nonnull %stage, i64 %8) #3
  %min.iters.check = icmp eq i64 %umin, 0
  br i1 %min.iters.check, label %stage2, label %vector.body

vector.body:                                      ; preds = %stage0.done, %vector.body
  %index = phi i64 [ %index.next, %vector.body ], [ 0, %stage0.done ]
  %18 = add nuw nsw i64 %index, %block
  %19 = getelementptr inbounds float, ptr %stage, i64 %index
  %wide.load = load <8 x float>, ptr %19, align 4, !llvm.access.group !5
  %20 = getelementptr inbounds float, ptr %clicks, i64 %18
  %wide.load18 = load <8 x float>, ptr %20, align 4, !llvm.access.group !5
  %21 = fmul <8 x float> %wide.load18, <float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01, float 5.000000e-01>
  %22 = fadd <8 x float> %wide.load, %21
  %23 = fcmp uno <8 x float> %22, zeroinitializer
  %24 = select <8 x i1> %23, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %22
  %25 = getelementptr inbounds float, ptr %out.a, i64 %18
  store <8 x float> %24, ptr %25, align 4, !llvm.access.group !5
  %26 = fdiv <8 x float> %wide.load, %broadcast.splat
  %27 = fadd <8 x float> %26, %22
  %28 = fcmp uno <8 x float> %27, zeroinitializer
  %29 = select <8 x i1> %28, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %27
  %30 = getelementptr inbounds float, ptr %out.b, i64 %18
  store <8 x float> %29, ptr %30, align 4, !llvm.access.group !5
  %31 = fmul <8 x float> %22, <float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01, float 2.500000e-01>
  %32 = fmul <8 x float> %27, <float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01, float 7.500000e-01>
  %33 = fadd <8 x float> %31, %32
  %34 = fadd <8 x float> %33, <float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00, float 6.000000e+00>
  %35 = fcmp uno <8 x float> %34, zeroinitializer
  %36 = select <8 x i1> %35, <8 x float> <float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000, float 0x7FF8000000000000>, <8 x float> %34
  %37 = getelementptr inbounds float, ptr %out.c, i64 %18
  store <8 x float> %36, ptr %37, align 4, !llvm.access.group !5
  %38 = getelementptr inbounds float, ptr %out.c1, i64 %18
  store <8 x float> %36, ptr %38, align 4, !llvm.access.group !5
  %index.next = add nuw i64 %index, 8
  %39 = icmp eq i64 %index.next, %umin
  br i1 %39, label %stage2.done, label %vector.body, !llvm.loop !11

stage2:                                           ; preds = %stage0.done, %stage2
  %j3 = phi i64 [ %next16, %stage2 ], [ 0, %stage0.done ]
  %i4 = add nuw nsw i64 %j3, %block
  %40 = getelementptr inbounds float, ptr %stage, i64 %j3
  %a5 = load float, ptr %40, align 4, !llvm.access.group !5
  %41 = getelementptr inbounds float, ptr %clicks, i64 %i4
  %clicks6 = load float, ptr %41, align 4, !llvm.access.group !5
  %42 = fmul float %clicks6, 5.000000e-01
  %43 = fadd float %a5, %42
  %44 = fcmp uno float %43, 0.000000e+00
  %45 = select i1 %44, float 0x7FF8000000000000, float %43
  %46 = getelementptr inbounds float, ptr %out.a, i64 %i4
  store float %45, ptr %46, align 4, !llvm.access.group !5
  %47 = fdiv float %a5, %q
  %48 = fadd float %47, %43
  %49 = fcmp uno float %48, 0.000000e+00
  %50 = select i1 %49, float 0x7FF8000000000000, float %48
  %51 = getelementptr inbounds float, ptr %out.b, i64 %i4
  store float %50, ptr %51, align 4, !llvm.access.group !5
  %52 = fmul float %43, 2.500000e-01
  %53 = fmul float %48, 7.500000e-01
  %54 = fadd float %52, %53
  %55 = fadd float %54, 6.000000e+00
  %56 = fcmp uno float %55, 0.000000e+00
  %57 = select i1 %56, float 0x7FF8000000000000, float %55
  %58 = getelementptr inbounds float, ptr %out.c, i64 %i4
  store float %57, ptr %58, align 4, !llvm.access.group !5
  %59 = getelementptr inbounds float, ptr %out.c1, i64 %i4
  store float %57, ptr %59, align 4, !llvm.access.group !5
  %next16 = add nuw nsw i64 %j3, 1
  %60 = icmp eq i64 %next16, %8
  br i1 %60, label %stage2.done, label %stage2, !llvm.loop !12

stage2.done:                                      ; preds = %vector.body, %stage2
  %next.block = add nuw nsw i64 %block, 512
  %.not = icmp ult i64 %next.block, %count
  %indvar.next = add i64 %indvar, 1
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
!10 = distinct !{!10, !7, !9, !8}
!11 = distinct !{!11, !7, !8, !9}
!12 = distinct !{!12, !7, !9, !8}
