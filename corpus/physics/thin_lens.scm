; Thin-lens equation solved for the image distance: 1/di = 1/f - 1/do
(define (image-distance focal object)
  (/ 1 (- (/ 1 focal) (/ 1 object))))
(image-distance f d)
