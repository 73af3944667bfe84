; The paper's second program: a + b x^2
(+ a (* b (* x x)))
