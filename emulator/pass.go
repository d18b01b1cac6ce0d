package emulator

// pass runs a Pass state: its result is Result when set, else the evaluated Parameters, else
// the effective input.
func (r *runner) pass(s *stateRun, input any) (any, error) {
	if s.node.jsonata != nil {
		return r.jsonataFinish(s, input, nil, false)
	}
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, err
	}
	result := s.node.result
	if result == nil {
		if result, err = r.applyParameters(s, effective); err != nil {
			return nil, err
		}
	}
	return r.finishResult(s, input, result)
}

// succeed runs a Succeed state: InputPath then OutputPath.
func (r *runner) succeed(s *stateRun, input any) (any, error) {
	if s.node.jsonata != nil {
		return r.jsonataFinish(s, input, nil, false)
	}
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, err
	}
	return r.applyOutputPath(s, effective)
}
