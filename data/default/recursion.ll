; A small module written for ilkit's default scan: mutual recursion (a call SCC),
; a function-pointer table (ref edges), loops and a kernel.
target triple = "nvptx64-nvidia-cuda"

@table = internal global [2 x ptr] [ptr @even, ptr @odd]

define internal i1 @even(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %yes, label %rec
yes:
  ret i1 true
rec:
  %m = sub i32 %n, 1
  %r = call i1 @odd(i32 %m)
  ret i1 %r
}

define internal i1 @odd(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %no, label %rec
no:
  ret i1 false
rec:
  %m = sub i32 %n, 1
  %r = call i1 @even(i32 %m)
  ret i1 %r
}

define i32 @sum(ptr %p, i32 %n) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %outer.latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc2, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %inner ]
  %acc1 = phi i32 [ %acc, %outer ], [ %acc3, %inner ]
  %q = getelementptr i32, ptr %p, i32 %j
  %v = load i32, ptr %q
  %acc3 = add i32 %acc1, %v
  %j1 = add i32 %j, 1
  %c = icmp slt i32 %j1, %n
  br i1 %c, label %inner, label %outer.latch
outer.latch:
  %acc2 = phi i32 [ %acc3, %inner ]
  %i1 = add i32 %i, 1
  %d = icmp slt i32 %i1, %n
  br i1 %d, label %outer, label %exit
exit:
  ret i32 %acc2
}

define void @kernel(ptr %out, i32 %n) {
entry:
  %e = call i1 @even(i32 %n)
  %s = call i32 @sum(ptr %out, i32 %n)
  %f = load ptr, ptr @table
  %r = call i1 %f(i32 %n)
  store i32 %s, ptr %out
  ret void
}
